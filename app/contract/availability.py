"""Availability on the wire (extension): a provider's weekly pattern versions, dated exceptions,
and the computed windows (`GET /v1/availability/windows`).

Shape only: ends after starts, overlaps and permissions are the API's business. Times of a pattern
are local wall-clock times of the site's zone; dates are local calendar dates.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Omittable, Page, Timestamp
from app.contract.work_rules import Day

AvailabilityKind = Literal["available", "preferred", "unavailable"]
ExceptionKind = Literal["available", "unavailable"]
WeekdayName = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                      "sunday"]
ClockTime = Annotated[str, Field(pattern=r"^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$",
                                 min_length=5, max_length=5, examples=["07:00", "24:00"],
                                 description="A local time HH:MM; 24:00 ends a range at the "
                                             "next midnight.")]
Note = Annotated[str, Field(max_length=500)]
_VERSION = Field(description="The version being changed; an outdated one fails with "
                             "`version-conflict`. Left out, the change applies to the latest.")


class AvailabilityRule(ApiModel):
    """One range of one weekday in a weekly pattern."""

    weekday: WeekdayName
    start_time: ClockTime
    end_time: ClockTime
    kind: AvailabilityKind


Rules = Annotated[list[AvailabilityRule], Field(max_length=100)]


class AvailabilityRead(ApiModel):
    """A version of a provider's weekly pattern, in force from `effectiveFrom` (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    provider_id: Id
    effective_from: Day
    rules: list[AvailabilityRule]


class AvailabilityPage(Page[AvailabilityRead]):
    """A page of weekly patterns."""


class AvailabilityListQuery(ListQuery):
    """Query of GET /v1/availabilities."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = None
    team_id: Id | None = None


class AvailabilityCreate(ApiModel):
    """Body of POST /v1/availabilities."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = Field(default=None, description="Defaults to the caller's own.")
    effective_from: Day
    rules: Rules = Field(default_factory=list)


class AvailabilityUpdate(ApiModel):
    """Body of PATCH /v1/availabilities/{availabilityId}: members left out keep their value."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION
    effective_from: Omittable[Day]
    rules: Omittable[Rules]


class VersionQuery(ApiModel):
    """Query of the availability DELETE endpoints."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: int | None = Field(default=None, ge=0, description="The version being deleted; an "
                                "outdated one fails with `version-conflict`.")


class AvailabilityExceptionRead(ApiModel):
    """Local days (inclusive) on which the weekly pattern does not apply (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    provider_id: Id
    start_date: Day
    end_date: Day
    kind: ExceptionKind
    note: str | None


class AvailabilityExceptionPage(Page[AvailabilityExceptionRead]):
    """A page of availability exceptions."""


class AvailabilityExceptionListQuery(ListQuery):
    """Query of GET /v1/availability-exceptions: exceptions overlapping the dates, by start."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = None
    team_id: Id | None = None
    start_date: Day | None = None
    end_date: Day | None = None


class AvailabilityExceptionCreate(ApiModel):
    """Body of POST /v1/availability-exceptions."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = Field(default=None, description="Defaults to the caller's own.")
    start_date: Day
    end_date: Day
    kind: ExceptionKind = "unavailable"
    note: Note | None = None


class AvailabilityExceptionUpdate(ApiModel):
    """Body of PATCH /v1/availability-exceptions/{exceptionId}: members left out keep their
    value; a null `note` clears it."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION
    start_date: Omittable[Day]
    end_date: Omittable[Day]
    kind: Omittable[ExceptionKind]
    note: Note | None = None


class AvailabilityWindowQuery(ApiModel):
    """Query of GET /v1/availability/windows: one provider or one team, at most 31 days."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = None
    team_id: Id | None = None
    start_date: Day
    end_date: Day = Field(description="The last local date, inclusive.")


class AvailabilityWindow(ApiModel):
    """An interval a provider is unavailable in, or prefers to work."""

    start_date: Timestamp
    end_date: Timestamp
    kind: Literal["preferred", "unavailable"]
    reason: str = Field(description="The exception's note, or the pattern range it comes from.")
    source: Literal["pattern", "exception"]


class ProviderWindows(ApiModel):
    """One provider's windows."""

    provider_id: Id
    windows: list[AvailabilityWindow]


class AvailabilityWindows(ApiModel):
    """Answer of GET /v1/availability/windows: per provider, sorted by start (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    items: list[ProviderWindows]
