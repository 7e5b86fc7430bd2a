"""Demand forecast rows: the upload and reading them back.

Reading needs `view` on `DemandForecast`; rows are then filtered by the same rules (field `role`)
in SQL. Uploading needs `create` on `DemandForecast` for every row's role; an upload is all or
nothing. Must not commit or read the request.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import insert, select
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


def upload_demand_forecast(session: Session, *, actor: Actor, rows: list[wire.DemandForecastRow],
                           max_batch_size: int) -> int:
    """Store every row or none; return how many were stored.

    Raises `unauthorized`, `batch-size-exceeded` (more than `max_batch_size` rows),
    `negative-range` (a row ends before it starts: path `/N/endDate`), `validation` (unknown
    role: path `/N/role`, every such row listed in `errors`).
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
    wanted = {row.role for row in rows}
    known: set[uuid.UUID] = set(
        session.scalars(select(Role.id).where(Role.id.in_(wanted))) if wanted else []
    )
    unknown = [FieldError(path=f"/{index}/role", message=f"there is no role {row.role}")
               for index, row in enumerate(rows) if row.role not in known]
    if unknown:
        raise validation(unknown[0].path, unknown[0].message, unknown)
    for role in sorted(wanted, key=str):
        actor.require("create", "DemandForecast", {"role": role})
    if rows:
        session.execute(insert(DemandForecastRow), [
            {"id": uuid.uuid4(), "role_id": row.role, "start_date": row.start_date,
             "end_date": row.end_date, "demand": row.demand,
             "extra": dict(row.model_extra or {}), "uploaded_by_id": actor.user_id}
            for row in rows
        ])
    return len(rows)
