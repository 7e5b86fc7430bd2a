"""Demand forecasts on the wire: the uploaded rows, the upload body and its answer, the read-back.

Shape only. The batch limit is enforced by the API (`batch-size-exceeded`, not `validation`), so
the upload model itself takes any number of rows.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, RootModel

from app.contract.common import EXTENSION, Count, Id, ListQuery, OpenModel, Page, Timestamp

MAX_DEMAND_ROWS = 1000
"""Most rows one upload may carry; beyond it the API answers `batch-size-exceeded`."""


class DemandForecastRow(OpenModel):
    """How many staff of a role are needed in a time window; extra properties are kept."""

    role: Id = Field(description="Id of the role in demand.")
    start_date: Timestamp
    end_date: Timestamp
    demand: float = Field(ge=0, allow_inf_nan=False, description="Number of staff needed.")


class DemandForecastUpload(RootModel[list[DemandForecastRow]]):
    """Body of POST /v1/forecasting/demand: a JSON array of rows (the spec leaves it open)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class DemandForecastUploadResult(Count):
    """Answer of POST /v1/forecasting/demand: how many rows were stored (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class DemandForecastRead(DemandForecastRow):
    """A stored forecast row as GET /v1/forecasting/demand returns it (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id


class DemandForecastPage(Page[DemandForecastRead]):
    """A page of stored forecast rows (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class DemandForecastListQuery(ListQuery):
    """Query of GET /v1/forecasting/demand (extension): rows of a role overlapping a window."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    role: Id | None = None
    start_date: Timestamp | None = Field(default=None, description="Rows ending after.")
    end_date: Timestamp | None = Field(default=None, description="Rows starting before.")
