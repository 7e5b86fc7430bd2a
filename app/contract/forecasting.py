"""Demand forecasts on the wire: the uploaded rows, the upload body and its answer, the read-back.

Shape only. The batch limit is enforced by the API (`batch-size-exceeded`, not `validation`), so
the upload model itself takes any number of rows.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, RootModel

from app.contract.common import (
    EXTENSION,
    ApiModel,
    Count,
    Id,
    ListQuery,
    OpenModel,
    Page,
    Timestamp,
)

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

    replaced: int = Field(default=0, ge=0, description=(
        "How many of the stored rows replaced a row already stored with the same role, "
        "startDate and endDate (the others were added)."))


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


MAX_COVERAGE_DAYS = 31
"""Longest window one coverage answer covers."""


def _divides_a_day(minutes: int) -> int:
    if (24 * 60) % minutes:
        raise ValueError("must divide a day (1440 minutes) evenly, e.g. 15, 30, 60 or 120")
    return minutes


class CoverageQuery(ApiModel):
    """Query of GET /v1/forecasting/coverage (extension): a team's window, optionally one role,
    cut into intervals of `interval` minutes."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    team_id: Id = Field(description="The team whose roles and shifts are counted.")
    start_date: Timestamp
    end_date: Timestamp = Field(description=f"At most {MAX_COVERAGE_DAYS} days after startDate.")
    role_id: Id | None = Field(default=None, description="Only this role of the team.")
    assume_approved: Id | None = Field(default=None, description=(
        "A time-off request (pending, or any the caller may view) to count as approved: the "
        "coverage its approval would leave, whatever it does to the shifts (a callout, a "
        "deletion or keeping the shift all take the person off the floor)."))
    interval: Annotated[int, AfterValidator(_divides_a_day)] = Field(
        default=60, ge=5, le=24 * 60, description=(
            "Minutes per interval, a divisor of a day. Intervals are laid in elapsed time from "
            "each local midnight of the site's zone: a spring-forward day has one hourly "
            "interval fewer, a fall-back day one more."))


class CoverageInterval(ApiModel):
    """One interval of one role. Each figure is a headcount averaged over the interval
    (30 minutes of one nurse in a 60-minute interval count 0.5), to 4 decimal places."""

    start_date: Timestamp
    end_date: Timestamp
    demand: float = Field(description="Staff the forecast asks for (rows overlapping add up).")
    scheduled: float = Field(description=(
        "Staff on assigned shifts' working segments (no callouts, no breaks, no on-call time), "
        "less their approved time off; a person counts once however many shifts overlap."))
    open: float = Field(description="Staff the open shifts' working segments would add.")
    gap: float = Field(description="demand - scheduled: above 0 short, below 0 over.")


class CoverageRole(ApiModel):
    """A role's coverage over the window."""

    role_id: Id
    role_name: str
    has_forecast: bool = Field(description="Whether any forecast row of the role overlaps the "
                                           "window (without one, demand is 0 throughout).")
    short_hours: float = Field(description="Staff-hours missing over the window: the sum of "
                                           "each interval's positive gap times its length.")
    intervals: list[CoverageInterval]


class CoverageRead(ApiModel):
    """Answer of GET /v1/forecasting/coverage (extension): per role of the team, demand against
    scheduled and open staff, interval by interval."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    team_id: Id
    start_date: Timestamp
    end_date: Timestamp
    interval: int
    time_zone: str = Field(description="The zone whose local midnights the intervals start at.")
    roles: list[CoverageRole]
