"""Demand forecast rows: the upload and reading them back.

Reading needs `view` on `DemandForecast`; rows are then filtered by the same rules (field `role`)
in SQL. Uploading needs `create` on `DemandForecast` for every row's role (fields `role` and `team`,
the role's team); an upload is all or nothing, and a row replaces the stored row of the same
role and window. Must not commit or read the request.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import DemandForecastRow, Role
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, validation
from app.api.services.appointments import check_range
from app.api.subjects import DEMAND_FORECAST
from app.contract import forecasting as wire
from app.contract.forecasting import DemandForecastListQuery, DemandForecastRead
from app.contract.problems import FieldError, ProblemCode

_ROW_MEMBERS = frozenset(
    key
    for name, info in DemandForecastRead.model_fields.items()
    for key in (name, info.alias or name)
)
"""Declared members of a forecast row; stored extra properties never shadow them."""


def list_demand_forecast(
    session: Session, *, actor: Actor, query: DemandForecastListQuery, pages: Paginator
) -> tuple[list[DemandForecastRow], str | None]:
    """One page of forecast rows by start date; raises `unauthorized`, `negative-range`.

    `startDate`/`endDate` select rows overlapping the window (half-open, as for appointments).
    """
    actor.require("view", "DemandForecast")
    check_range(query.start_date, query.end_date)
    statement = select(DemandForecastRow).where(
        actor.where("view", "DemandForecast", DEMAND_FORECAST.columns)
    )
    if query.role is not None:
        statement = statement.where(DemandForecastRow.role_id == query.role)
    if query.start_date is not None:
        statement = statement.where(DemandForecastRow.end_date > query.start_date)
    if query.end_date is not None:
        statement = statement.where(DemandForecastRow.start_date < query.end_date)
    return pages.page(session, statement, scope="demand-forecast", query=query,
                      order=[SortKey(DemandForecastRow.start_date), SortKey(DemandForecastRow.id)])


def demand_forecast_read(row: DemandForecastRow) -> DemandForecastRead:
    """The wire form of a stored row, with the extra properties it was uploaded with."""
    extra: dict[str, Any] = {k: v for k, v in (row.extra or {}).items() if k not in _ROW_MEMBERS}
    return DemandForecastRead.model_validate({
        **extra,
        "id": row.id,
        "role": row.role_id,
        "startDate": row.start_date,
        "endDate": row.end_date,
        "demand": row.demand,
    })


Key = tuple[uuid.UUID, datetime, datetime]
"""What a forecast row is about: its role and its window (UTC). An upload replaces by it."""


def _key(role: uuid.UUID, start: datetime, end: datetime) -> Key:
    return role, start.astimezone(UTC), end.astimezone(UTC)


def _same_window_twice(rows: list[wire.DemandForecastRow]) -> list[FieldError]:
    """Each row whose role, startDate and endDate an earlier row of the upload already has."""
    first: dict[Key, int] = {}
    found: list[FieldError] = []
    for index, row in enumerate(rows):
        earlier = first.setdefault(_key(row.role, row.start_date, row.end_date), index)
        if earlier != index:
            found.append(FieldError(path=f"/{index}", message=(
                f"the same role, startDate and endDate as the row at /{earlier}; an upload "
                "gives each role and window one demand")))
    return found


def _stored_rows(session: Session, keys: set[Key]) -> dict[Key, list[uuid.UUID]]:
    """The stored rows with one of `keys`, oldest first, in one query over the roles and the
    span of start dates the keys have (an index covers `role_id, start_date`)."""
    roles = {role for role, _, _ in keys}
    starts = [start for _, start, _ in keys]
    found: dict[Key, list[uuid.UUID]] = {}
    statement = (
        select(DemandForecastRow.id, DemandForecastRow.role_id, DemandForecastRow.start_date,
               DemandForecastRow.end_date)
        .where(DemandForecastRow.role_id.in_(roles),
               DemandForecastRow.start_date >= min(starts),
               DemandForecastRow.start_date <= max(starts))
        .order_by(DemandForecastRow.created_at, DemandForecastRow.id)
    )
    for row_id, role, start, end in session.execute(statement):
        key = _key(role, start, end)
        if key in keys:
            found.setdefault(key, []).append(row_id)
    return found


def upload_demand_forecast(session: Session, *, actor: Actor, rows: list[wire.DemandForecastRow],
                           max_batch_size: int) -> tuple[int, int]:
    """Store every row or none; return how many were stored and how many of them replaced a
    stored row.

    A row replaces the stored row with the same role, startDate and endDate: that row keeps its
    id and takes the upload's demand and extra properties (older stored copies of the same
    window, left by uploads before this rule, are removed). Every other stored row stays, so
    uploading the same rows twice leaves them as after the first time.

    Raises `unauthorized`, `batch-size-exceeded` (more than `max_batch_size` rows),
    `negative-range` (a row ends before it starts: path `/N/endDate`), `validation` (two rows
    of the upload with the same role and window: path `/N` of each later one; unknown role:
    path `/N/role`; every such row listed in `errors`).
    """
    actor.require("create", "DemandForecast")
    if len(rows) > max_batch_size:
        raise ProblemError(
            ProblemCode.BATCH_SIZE_EXCEEDED,
            f"An upload takes at most {max_batch_size} rows and this one has {len(rows)}; "
            "split it into smaller uploads.",
            batchSize=len(rows), maxBatchSize=max_batch_size,
        )
    for index, row in enumerate(rows):
        if row.end_date <= row.start_date:
            raise negative_range(f"/{index}/endDate")
    twice = _same_window_twice(rows)
    if twice:
        raise validation(twice[0].path, twice[0].message, twice)
    wanted = {row.role for row in rows}
    teams: dict[uuid.UUID, uuid.UUID] = dict(list(session.execute(
        select(Role.id, Role.team_id).where(Role.id.in_(wanted))).tuples()) if wanted else [])
    unknown = [FieldError(path=f"/{index}/role", message=f"there is no role {row.role}")
               for index, row in enumerate(rows) if row.role not in teams]
    if unknown:
        raise validation(unknown[0].path, unknown[0].message, unknown)
    for role in sorted(wanted, key=str):
        actor.require("create", "DemandForecast", {"role": role, "team": teams[role]})
    if not rows:
        return 0, 0
    stored = _stored_rows(session, {_key(r.role, r.start_date, r.end_date) for r in rows})
    updates: list[dict[str, Any]] = []
    inserts: list[dict[str, Any]] = []
    removed: list[uuid.UUID] = []
    for row in rows:
        values = {"demand": row.demand, "extra": dict(row.model_extra or {}),
                  "uploaded_by_id": actor.user_id}
        same = stored.get(_key(row.role, row.start_date, row.end_date))
        if same:
            updates.append({"id": same[0], **values})
            removed.extend(same[1:])
        else:
            inserts.append({"id": uuid.uuid4(), "role_id": row.role,
                            "start_date": row.start_date, "end_date": row.end_date, **values})
    if removed:
        session.execute(delete(DemandForecastRow).where(DemandForecastRow.id.in_(removed)))
    if updates:
        session.execute(update(DemandForecastRow), updates)
    if inserts:
        session.execute(insert(DemandForecastRow), inserts)
    return len(rows), len(updates)
