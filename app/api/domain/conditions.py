"""The permission condition language: a MongoDB-style query subset over a resource's fields.

A condition document is a JSON object. `{"field": value}` means equality; `{"field": {"$in":
[...]}}` applies operators (`$eq $ne $in $nin $lt $lte $gt $gte $exists`); `$and` / `$or` take
lists of documents; several keys in one document must all hold. Values may be placeholders
(`"$user.id"`, `"$user.providerId"`, `"$user.teamIds"`) filled in for the signed-in user.

This module checks documents, fills placeholders and evaluates them against one object; the SQL
translation of the same documents lives in `app.api.authorization`. No Flask, no SQL here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from app.contract.common import parse_timestamp

COMPARISONS = frozenset({"$eq", "$ne", "$in", "$nin", "$lt", "$lte", "$gt", "$gte", "$exists"})
LOGICAL = frozenset({"$and", "$or"})
PLACEHOLDERS = frozenset({"$user.id", "$user.providerId", "$user.teamIds"})
_LIST_OPERATORS = frozenset({"$in", "$nin"})
_ORDER_OPERATORS = frozenset({"$lt", "$lte", "$gt", "$gte"})


@dataclass(frozen=True)
class ConditionError:
    """Where a condition document is wrong (a JSON Pointer inside it) and why."""

    path: str
    message: str


def validate(document: Any, fields: frozenset[str] | None = None) -> list[ConditionError]:
    """Every problem in a condition document; empty when it is valid.

    `fields` limits which resource fields may be named (None: any).
    """
    if document is None:
        return []
    return list(_validate_doc(document, "", fields))


def _validate_doc(doc: Any, path: str, fields: frozenset[str] | None) -> Iterator[ConditionError]:
    if not isinstance(doc, dict):
        yield ConditionError(path or "/", "a condition must be a JSON object")
        return
    for key, value in doc.items():
        here = f"{path}/{_escape(key)}"
        if key in LOGICAL:
            if not isinstance(value, list) or not value:
                yield ConditionError(here, f"{key} takes a non-empty list of conditions")
                continue
            for index, item in enumerate(value):
                yield from _validate_doc(item, f"{here}/{index}", fields)
        elif key.startswith("$"):
            yield ConditionError(here, f"unknown operator {key}; use $and or $or at this level")
        else:
            if fields is not None and key not in fields:
                allowed = ", ".join(sorted(fields))
                yield ConditionError(here, f"unknown field {key!r}; known fields: {allowed}")
            yield from _validate_operand(value, here)


def _validate_operand(value: Any, path: str) -> Iterator[ConditionError]:
    if isinstance(value, dict):
        if not value:
            yield ConditionError(path, "an operator object needs at least one operator")
        for op, operand in value.items():
            here = f"{path}/{_escape(op)}"
            if op not in COMPARISONS:
                yield ConditionError(here, f"unknown operator {op}")
            elif op in _LIST_OPERATORS:
                if not (isinstance(operand, list) or operand == "$user.teamIds"):
                    yield ConditionError(here, f"{op} takes a list")
                else:
                    items = operand if isinstance(operand, list) else []
                    for index, item in enumerate(items):
                        yield from _validate_scalar(item, f"{here}/{index}")
            elif op == "$exists":
                if not isinstance(operand, bool):
                    yield ConditionError(here, "$exists takes true or false")
            elif op in _ORDER_OPERATORS and (operand is None or isinstance(operand, bool)):
                yield ConditionError(here, f"{op} takes a number, string or timestamp")
            else:
                yield from _validate_scalar(operand, here)
    else:
        yield from _validate_scalar(value, path)


def _validate_scalar(value: Any, path: str) -> Iterator[ConditionError]:
    if isinstance(value, (dict, list)):
        yield ConditionError(path, "expected a single value here")
    elif isinstance(value, float) and not math.isfinite(value):
        yield ConditionError(path, "numbers must be finite")
    elif isinstance(value, str) and value.startswith("$user.") and value not in PLACEHOLDERS:
        yield ConditionError(path, f"unknown placeholder {value}; known: "
                             + ", ".join(sorted(PLACEHOLDERS)))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def fill(document: Any, user: Mapping[str, Any]) -> Any:
    """Replace placeholders with the user's values (`user` keys: id, providerId, teamIds).

    A placeholder the user has no value for (`$user.providerId` of someone who is not a
    provider) becomes `UNSET`, which equals nothing: `{"provider": "$user.providerId"}` must not
    read as "provider is null", i.e. every open shift.
    """
    if isinstance(document, dict):
        return {key: fill(value, user) for key, value in document.items()}
    if isinstance(document, list):
        return [fill(item, user) for item in document]
    if isinstance(document, str) and document in PLACEHOLDERS:
        value = user.get(document.removeprefix("$user."))
        return UNSET if value is None else value
    return document


def matches(document: Any, obj: Mapping[str, Any]) -> bool:
    """Whether an object (wire field name → value) satisfies a filled condition document."""
    if document is None:
        return True
    return all(_matches_key(key, value, obj) for key, value in document.items())


def _matches_key(key: str, value: Any, obj: Mapping[str, Any]) -> bool:
    if key == "$and":
        return all(matches(item, obj) for item in value)
    if key == "$or":
        return any(matches(item, obj) for item in value)
    present = key in obj and obj[key] is not None
    actual = obj.get(key)
    if isinstance(value, dict):
        return all(_compare(op, actual, operand, present) for op, operand in value.items())
    return _compare("$eq", actual, value, present)


def _norm(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    return value


class _Unmatchable:
    """Stands for an operand of another type than the value: equal to nothing, unordered."""

    def __eq__(self, other: object) -> bool:
        return False

    def __lt__(self, other: object) -> bool:
        raise TypeError("unmatchable operand")

    __gt__ = __le__ = __ge__ = __lt__
    __hash__ = None  # type: ignore[assignment]


_UNMATCHABLE = _Unmatchable()
UNSET: Any = _UNMATCHABLE
"""What `fill` puts for a placeholder the user has no value for: equal to nothing, unordered."""


def _coerce(operand: Any, like: Any) -> Any:
    """Bring an operand to the type of the object's value (timestamps and ids arrive as strings).

    A boolean never stands for a number nor the reverse, as in SQL (`app.api.authorization`).
    """
    if isinstance(like, bool) != isinstance(operand, bool):
        return _UNMATCHABLE
    if isinstance(like, datetime) and isinstance(operand, str):
        try:
            return parse_timestamp(operand)
        except ValueError:
            return _UNMATCHABLE
    if isinstance(like, UUID) and isinstance(operand, str):
        try:
            return str(UUID(operand))
        except ValueError:
            return _UNMATCHABLE
    return _norm(operand)


def _equal(actual: Any, operand: Any) -> bool:
    if isinstance(actual, (list, tuple, set, frozenset)):
        return any(_equal(item, operand) for item in actual)
    return _norm(actual) == _coerce(operand, actual)


def _compare(op: str, actual: Any, operand: Any, present: bool) -> bool:
    if op == "$exists":
        return present == bool(operand)
    if op == "$eq":
        return (not present) if operand is None else _equal(actual, operand)
    if op == "$ne":
        return not _compare("$eq", actual, operand, present)
    if op == "$in":
        return any(_compare("$eq", actual, item, present) for item in operand or [])
    if op == "$nin":
        return not _compare("$in", actual, operand, present)
    if not present or isinstance(actual, (list, tuple)):
        return False
    left, right = _norm(actual), _coerce(operand, actual)
    try:
        return {
            "$lt": left < right, "$lte": left <= right, "$gt": left > right, "$gte": left >= right,
        }[op]
    except TypeError:
        return False
