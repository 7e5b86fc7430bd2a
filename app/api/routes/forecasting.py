"""Demand forecast: `GET /v1/forecasting/demand` (extension) reads stored rows back.

A thin view over `app.api.services.forecasting`; needs `view` on `DemandForecast`. The upload
(`POST`) lives in its own change.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import forecasting as service
from app.contract.forecasting import DemandForecastListQuery, DemandForecastPage


@endpoint("GET", "/forecasting/demand", summary="List demand forecast rows",
          query=DemandForecastListQuery, response=DemandForecastPage, codes=["negative-range"],
          extension=True, tag="Forecasting")
def list_demand_forecast(session: Session, actor: Actor, query: DemandForecastListQuery,
                         pages: Paginator) -> DemandForecastPage:
    """Stored forecast rows by start date, of one role and overlapping a window if given."""
    rows, cursor = service.list_demand_forecast(session, actor=actor, query=query, pages=pages)
    return DemandForecastPage(items=[service.demand_forecast_read(r) for r in rows], cursor=cursor)
