"""Reading demand forecast rows back: the list query and ORM → wire conversion.

Needs `view` on `DemandForecast`; rows are then filtered by the same rules (field `role`) in SQL.
Must not commit, read the request, or store uploads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import DemandForecastRow
from app.api.pagination import Paginator, SortKey
from app.api.services.appointments import check_range
from app.api.subjects import DEMAND_FORECAST
from app.contract.forecasting import DemandForecastListQuery, DemandForecastRead

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
