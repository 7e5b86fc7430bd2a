"""Helpers shared by the model modules: the UTC clock default and named CHECK constraints.

Must not define mapped classes (those live one aggregate per module) nor know about requests.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import CheckConstraint


def utcnow() -> datetime:
    """Return the current instant, timezone-aware in UTC (the default of every timestamp)."""
    return datetime.now(UTC)


def one_of(column: str, values: Iterable[str]) -> CheckConstraint:
    """Allow only `values` in `column`; named `ck_<table>_<column>` by the naming convention.

    NULL passes, as SQL CHECKs do, so nullability stays the column's own business.
    """
    allowed = ", ".join(f"'{value}'" for value in values)
    return CheckConstraint(f"{column} IN ({allowed})", name=column)


def end_after_start(start: str = "start_date", end: str = "end_date") -> CheckConstraint:
    """Require `end` strictly after `start`; named `ck_<table>_<end>_after_<start>`."""
    return CheckConstraint(f"{end} > {start}", name=f"{end}_after_{start}")
