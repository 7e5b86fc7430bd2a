"""Demand forecast: `POST /v1/forecasting/demand` uploads rows, `GET` (extension) reads them back.

Thin views over `app.api.services.forecasting`; uploading needs `create`, reading `view` on
`DemandForecast`.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import forecasting as service
from app.config import Settings
from app.contract.forecasting import (
    DemandForecastListQuery,
    DemandForecastPage,
    DemandForecastUpload,
    DemandForecastUploadResult,
)


@endpoint("POST", "/forecasting/demand", summary="Upload demand forecast rows",
          body=DemandForecastUpload, response=DemandForecastUploadResult, status=201,
          codes=["batch-size-exceeded", "negative-range"], tag="Forecasting",
          permits=[("create", "DemandForecast")])
def upload_demand_forecast(session: Session, actor: Actor, settings: Settings,
                           body: DemandForecastUpload
                           ) -> tuple[DemandForecastUploadResult, dict[str, str]]:
    """Store a JSON array of rows (extra properties kept), all or none; answers the count.

    At most `maxBatchSize` (1,000) rows: beyond, 400 `batch-size-exceeded`. Read them back with
    `GET /v1/forecasting/demand`.
    """
    count = service.upload_demand_forecast(session, actor=actor, rows=body.root,
                                           max_batch_size=settings.max_batch_size)
    return DemandForecastUploadResult(count=count), {"Location": "/v1/forecasting/demand"}


@endpoint("GET", "/forecasting/demand", summary="List demand forecast rows",
          query=DemandForecastListQuery, response=DemandForecastPage, codes=["negative-range"],
          extension=True, tag="Forecasting",
          permits=[("view", "DemandForecast")])
def list_demand_forecast(session: Session, actor: Actor, query: DemandForecastListQuery,
                         pages: Paginator) -> DemandForecastPage:
    """Stored forecast rows by start date, of one role and overlapping a window if given."""
    rows, cursor = service.list_demand_forecast(session, actor=actor, query=query, pages=pages)
    return DemandForecastPage(items=[service.demand_forecast_read(r) for r in rows], cursor=cursor)
