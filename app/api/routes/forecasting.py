"""Demand forecast: `POST /v1/forecasting/demand` uploads rows, `GET` (extension) reads them back.

Thin views over `app.api.services.forecasting`; uploading needs `create`, reading `view` on
`DemandForecast`.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import coverage
from app.api.services import forecasting as service
from app.api.wire_text import Document
from app.config import Settings
from app.contract.forecasting import (
    CoverageQuery,
    CoverageRead,
    DemandForecastListQuery,
    DemandForecastPage,
    DemandForecastUpload,
    DemandForecastUploadResult,
)


@endpoint("POST", "/forecasting/demand", summary="Upload demand forecast rows",
          body=DemandForecastUpload, response=DemandForecastUploadResult, status=201,
          codes=["validation", "batch-size-exceeded", "negative-range", "unauthorized"],
          tag="Forecasting",
          permits=[("create", "DemandForecast")])
def upload_demand_forecast(session: Session, actor: Actor, settings: Settings,
                           body: DemandForecastUpload
                           ) -> tuple[DemandForecastUploadResult, dict[str, str]]:
    """Store a JSON array of rows (extra properties kept), all or none; answers the count.

    What an upload replaces (extension): a row with the same `role`, `startDate` and `endDate`
    as a stored row replaces that row, which keeps its `id` and takes the new `demand` and extra
    properties; `replaced` counts them. Every other stored row stays, windows that overlap but
    differ included (their demand adds up in coverage). So the same file uploaded twice stores
    nothing twice, and a corrected file replaces its earlier figures. Two rows of one upload
    with the same role and window are refused (`validation`, path `/N` of each later row).

    At most `maxBatchSize` (1,000) rows: beyond, 400 `batch-size-exceeded`, which reports the
    limit. Needs `create` on `DemandForecast` for each row's role (condition fields `role` and
    `team`, the role's team). Read the rows back with `GET /v1/forecasting/demand`.
    """
    count, replaced = service.upload_demand_forecast(session, actor=actor, rows=body.root,
                                                     max_batch_size=settings.max_batch_size)
    return (DemandForecastUploadResult(count=count, replaced=replaced),
            {"Location": "/v1/forecasting/demand"})


@endpoint("GET", "/forecasting/demand", summary="List demand forecast rows",
          query=DemandForecastListQuery, response=DemandForecastPage, codes=["negative-range"],
          extension=True, tag="Forecasting",
          permits=[("view", "DemandForecast")])
def list_demand_forecast(session: Session, actor: Actor, query: DemandForecastListQuery,
                         pages: Paginator) -> DemandForecastPage:
    """Stored forecast rows by start date, of one role and overlapping a window if given."""
    rows, cursor = service.list_demand_forecast(session, actor=actor, query=query, pages=pages)
    return DemandForecastPage(items=[service.demand_forecast_read(r) for r in rows], cursor=cursor)


@endpoint("GET", "/forecasting/coverage", summary="Staffing coverage of a team against demand",
          query=CoverageQuery, response=CoverageRead,
          codes=["validation", "negative-range", "team-not-found", "role-not-found",
                 "time-off-request-not-found", "unauthorized"],
          extension=True, tag="Forecasting",
          permits=[("view", "DemandForecast"), ("view", "Shift")])
def get_coverage(session: Session, actor: Actor, settings: Settings,
                 query: CoverageQuery) -> Document:
    """Per role of the team (or `roleId` alone) and per interval of the window (at most 31
    days), the staff in `demand` (the forecast rows overlapping it, added up), `scheduled`
    (working segments of assigned shifts that are not callouts, less the person's approved time
    off; breaks and on-call time do not count, and a person counts once however many of their
    shifts overlap), `open` (the open shifts' working segments) and `gap` (`demand -
    scheduled`: above 0 short, below 0 over), each as a headcount averaged over the interval.

    Intervals of `interval` minutes (a divisor of a day; default 60) are laid in elapsed time
    from each local midnight of the site's zone: the spring-forward day has 23 hourly
    intervals, the fall-back day 25. A window not on that grid starts or ends with a shorter
    interval. With `assumeApproved`, that time-off request counts as approved (what approving
    it would leave). Needs `view` DemandForecast and `view` Shift in the team (and `view` on the
    assumed request).
    """
    return coverage.team_coverage(session, actor=actor, query=query, zone=settings.zone)
