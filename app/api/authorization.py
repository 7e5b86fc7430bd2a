"""Permission checks at the edge of the API: one object in Python, lists as SQL filters.

The same filled condition documents that `app.api.domain.conditions.matches` evaluates on an
object become a SQL boolean here, so a list returns only rows the caller may see and paginates
correctly. Every leaf is NULL-safe (a missing value compares as Python's None does), so the two
forms agree row for row.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    ColumnElement,
    Float,
    Integer,
    Numeric,
    String,
    Uuid,
    and_,
    false,
    literal,
    not_,
    or_,
    true,
)

from app.api.db import UtcDateTime
from app.api.domain.ability import Ability
from app.api.domain.conditions import UNSET, matches
from app.contract.common import parse_timestamp

Fields = Mapping[str, ColumnElement[Any]]


class _Unmatchable(Exception):
    """An operand that can never equal the column (e.g. a malformed uuid)."""


def _coerce(column: ColumnElement[Any], value: Any) -> Any:
    """The operand as the column's type; `_Unmatchable` when it is of another type.

    Strict like `conditions.matches` (a string never equals a number, a boolean never equals 0),
    and so that no operand reaches the database as a type it would refuse.
    """
    kind = column.type
    if value is UNSET:
        raise _Unmatchable
    if value is None:
        return None
    try:
        if isinstance(kind, Uuid):
            return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
        if isinstance(kind, UtcDateTime):
            return parse_timestamp(value)
    except (ValueError, TypeError, AttributeError) as exc:
        raise _Unmatchable from exc
    if isinstance(kind, Boolean):
        same_type = isinstance(value, bool)
    elif isinstance(kind, (Integer, Float, Numeric)):
        same_type = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(kind, String):
        same_type = isinstance(value, str)
    else:
        same_type = True
    if not same_type:
        raise _Unmatchable
    if isinstance(kind, Integer) and isinstance(value, int) and not -(2**31) <= value < 2**31:
        # PostgreSQL reads an integer column's operand as int4: give wider ones a wider type.
        return literal(value, BigInteger() if -(2**63) <= value < 2**63 else Numeric())
    return value


def _eq(column: ColumnElement[Any], value: Any) -> ColumnElement[bool]:
    if value is None:
        return column.is_(None)
    try:
        coerced = _coerce(column, value)
    except _Unmatchable:
        return false()
    return and_(column.is_not(None), column == coerced)


def _in(column: ColumnElement[Any], values: Any) -> ColumnElement[bool]:
    values = list(values or [])
    parts = [_eq(column, v) for v in values]
    return or_(false(), *parts) if parts else false()


def _order(op: str, column: ColumnElement[Any], value: Any) -> ColumnElement[bool]:
    try:
        coerced = _coerce(column, value)
    except _Unmatchable:
        return false()
    if coerced is None:  # a placeholder filled with None: nothing is smaller or larger
        return false()
    compare = {
        "$lt": column < coerced, "$lte": column <= coerced,
        "$gt": column > coerced, "$gte": column >= coerced,
    }[op]
    return and_(column.is_not(None), compare)


def _leaf(op: str, column: ColumnElement[Any], operand: Any) -> ColumnElement[bool]:
    if op == "$eq":
        return _eq(column, operand)
    if op == "$ne":
        return not_(_eq(column, operand))
    if op == "$in":
        return _in(column, operand)
    if op == "$nin":
        return not_(_in(column, operand))
    if op == "$exists":
        return column.is_not(None) if operand else column.is_(None)
    return _order(op, column, operand)


def to_sql(document: Any, fields: Fields) -> ColumnElement[bool]:
    """The SQL form of a filled condition document over a subject's fields.

    A field the subject does not map is absent from every row, as from every object that
    `matches` sees: `{"nope": null}` holds, `{"nope": 1}` does not.
    """
    if document is None:
        return true()
    parts: list[ColumnElement[bool]] = []
    for key, value in document.items():
        if key == "$and":
            parts.append(and_(true(), *(to_sql(item, fields) for item in value)))
        elif key == "$or":
            parts.append(or_(false(), *(to_sql(item, fields) for item in value)))
        elif key not in fields:  # absent from every row: decide as `matches` does for absence
            parts.append(true() if matches({key: value}, {}) else false())
        elif isinstance(value, dict):
            parts.extend(_leaf(op, fields[key], operand) for op, operand in value.items())
        else:
            parts.append(_eq(fields[key], value))
    return and_(true(), *parts)


def sql_filter(ability: Ability, action: str, subject: str, fields: Fields) -> ColumnElement[bool]:
    """The rows of `subject` the ability allows `action` on, as one SQL condition.

    Built from the lowest-precedence rule up, so that a later rule overrides an earlier one
    exactly as `Ability.decide` does: allow → `cond OR rest`, deny → `NOT cond AND rest`.
    """
    if ability.is_admin:
        return true()
    expression: ColumnElement[bool] = false()
    for rule in reversed(ability.relevant(action, subject)):
        condition = to_sql(rule.conditions, fields)
        if rule.inverted:
            expression = and_(not_(condition), expression)
        else:
            expression = or_(condition, expression)
    return expression
