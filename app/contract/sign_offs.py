"""Timesheet sign-offs on the wire (extension): signing a team's timesheets off for a range,
reading sign-offs, and the items that keep a timesheet from being signed off.

Shape only: readiness, overlaps and who may sign off or reopen are decided in `app.api`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp, is_absent

BlockingType = Literal["pending_punch", "no_clock_out", "invalid_shift"]
"""Why a timesheet cannot be signed off: a punch still pending review, a clock-in never closed
(the timesheet error `no_clock_out`), or a shift the timesheet cannot count (`invalid_shift`)."""

_EXAMPLE = {
    "id": "0b7c43a2-6a51-4a8e-9a35-4d3c8a7e2f10",
    "teamId": "6f1c0c55-2b8e-4a0e-8b8a-3f9d7e2c1a44",
    "startDate": "2026-03-02T05:00:00+0000",
    "endDate": "2026-03-16T04:00:00+0000",
    "providerIds": ["1d9e6f3a-8c4b-4f7e-9a2d-5b6c7d8e9f01"],
    "signedBy": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    "signedAt": "2026-03-16T14:30:00+0000",
    "reopenedBy": None,
    "reopenedAt": None,
}


class TimesheetSignOffCreate(ApiModel):
    """Body of POST /v1/timekeeping/timesheet/sign-offs: sign off `[startDate, endDate)`."""

    model_config = ConfigDict(json_schema_extra={
        **EXTENSION,
        "examples": [{"teamId": _EXAMPLE["teamId"], "startDate": _EXAMPLE["startDate"],
                      "endDate": _EXAMPLE["endDate"]}],
    })

    team_id: Id
    start_date: Timestamp
    end_date: Timestamp
    provider_ids: list[Id] | None = Field(
        default=None, min_length=1, max_length=500,
        description="The team's providers to sign off; every provider of the team when left "
                    "out. Each must belong to the team.")


class TimesheetSignOffRead(ApiModel):
    """A sign-off of a team's timesheets for `[startDate, endDate)`; `reopenedAt` and
    `reopenedBy` are set once it has been reopened (it then freezes nothing)."""

    model_config = ConfigDict(json_schema_extra={**EXTENSION, "examples": [_EXAMPLE]})

    id: Id
    team_id: Id
    start_date: Timestamp
    end_date: Timestamp
    provider_ids: list[Id] = Field(
        description="The providers signed off, those whose timesheets the caller may view.")
    signed_by: Id = Field(description="The user who signed off.")
    signed_at: Timestamp
    reopened_by: Id | None = Field(default=None,
                                   description="The user who reopened it; null while active.")
    reopened_at: Timestamp | None = None


class TimesheetSignOffPage(Page[TimesheetSignOffRead]):
    """A page of timesheet sign-offs (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class TimesheetSignOffQuery(ListQuery):
    """Query of GET /v1/timekeeping/timesheet/sign-offs: sign-offs overlapping
    `[startDate, endDate)` (either bound may be left out), of one team and one provider when
    given, reopened ones included, by `startDate`."""

    team_id: Id | None = None
    provider_id: Id | None = None
    start_date: Timestamp | None = None
    end_date: Timestamp | None = None


class TimesheetBlockingItem(ApiModel):
    """One item of a `timesheet-not-ready` problem's `blocking`: what to resolve first."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id
    type: BlockingType
    punch_id: Id | None = Field(default=None, exclude_if=is_absent)
    shift_id: Id | None = Field(default=None, exclude_if=is_absent)
    timecard_id: Id | None = Field(default=None, exclude_if=is_absent)
