"""Timekeeping on the wire: timecards and punches, the punch bodies, and timesheets with their
warnings, errors, pay code totals and pay segments.

Field names follow the spec exactly, including its quirk: the Timecard resource has
`nextActions` while `/me` (`TimecardMe`) has `nextAction`. Shape only: the next-action state
machine and the timesheet computation live in `app.api.domain`, never here.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from app.contract.common import (
    EXTENSION,
    ApiModel,
    Id,
    ListQuery,
    Omittable,
    Page,
    Timestamp,
    is_absent,
)

PunchAction = Literal["clock_in", "clock_out", "break_start", "break_end"]
"""What a punch records."""

PUNCH_ACTIONS: tuple[PunchAction, ...] = get_args(PunchAction)
"""Every punch action; a punch body may name another string, which the API refuses with
`invalid-punch-action` (not `validation`), as the spec has it."""

PunchState = Literal["pending", "approved", "rejected"]
"""Review state of a punch; a new punch is `pending`."""

TimesheetWarningType = Literal[
    "clock_in_early", "clock_out_early", "clock_in_late", "clock_out_late", "missing_shift"
]
"""A punch that does not match the schedule."""

TimesheetErrorType = Literal[
    "no_clock_out", "invalid_shift", "missing_timecard", "missing_pay_period_template"
]
"""Something that keeps a timesheet from being computed in full."""

PaySegmentType = Literal["working", "paid_break", "unpaid_break", "on_call", "time_off"]
"""Kind of paid (or unpaid) time a pay segment covers; the spec does not list the values."""


class TimecardPunchRead(ApiModel):
    """One clock-in, clock-out or break punch on a timecard."""

    id: Id
    timecard_id: Id
    provider_id: Id
    generated: bool = Field(default=False, description="Created by the system, not a person.")
    created_at: Timestamp
    updated_at: Timestamp
    action: PunchAction
    state: PunchState
    time: Timestamp
    provider_note: str | None
    admin_note: str | None
    created_by: Id | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="The user who recorded the punch (extension): the provider clocking, or a "
        "manager adding a missed punch; null for generated punches and those recorded before "
        "authors were kept.")
    reviewed_by: Id | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="The user who last approved, rejected, annotated or corrected the punch "
        "(extension); null while nobody has.")


class TimecardRead(ApiModel):
    """A provider's timecard: its punches and the actions allowed next."""

    punches: list[TimecardPunchRead]
    next_actions: list[PunchAction] = Field(description="Punch actions allowed next.")


class TimecardQuery(ApiModel):
    """Query of GET /v1/timekeeping/timecard/{provider} (extension): which pay period to show."""

    start_date: Timestamp | None = Field(
        default=None,
        description="Show the timecard of the pay period containing this instant; default: now.",
        json_schema_extra=EXTENSION,
    )


class TimecardShift(ApiModel):
    """The provider's current or next shift, as the clock-in page shows it."""

    id: Id
    start_date: Timestamp
    end_date: Timestamp
    on_call: bool


class TimecardMe(ApiModel):
    """The signed-in provider's own timecard; `nextShift` and `currentShift` are left out when
    there is none."""

    punches: list[TimecardPunchRead]
    next_action: list[PunchAction] = Field(
        description="Punch actions allowed next (named `nextAction` here, unlike the Timecard)."
    )
    next_shift: TimecardShift | None = Field(default=None, exclude_if=is_absent)
    current_shift: TimecardShift | None = Field(default=None, exclude_if=is_absent)


class PunchCreate(ApiModel):
    """Body of POST /v1/timekeeping/timecard/punches."""

    provider: Id
    action: str = Field(
        description="Must be one of the timecard's next actions, else `invalid-punch-action` "
                    "(an unknown action too).",
        json_schema_extra={"enum": list(PUNCH_ACTIONS)},
    )
    time: Timestamp | None = Field(default=None, description="Defaults to now.")
    state: PunchState = "pending"
    provider_note: str | None = None
    admin_note: str | None = None


class PunchUpdate(ApiModel):
    """Body of PATCH /v1/timekeeping/timecard/punches/{punchId} (extension): a manager's review."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    state: Omittable[PunchState]
    admin_note: str | None = None
    time: Omittable[Timestamp]


class TimesheetWarning(ApiModel):
    """A punch that does not match the schedule."""

    type: TimesheetWarningType
    punch_id: Id


class TimesheetError(ApiModel):
    """A problem that keeps the timesheet from being complete; ids left out when not applicable."""

    type: TimesheetErrorType
    shift_id: Id | None = Field(default=None, exclude_if=is_absent)
    timecard_id: Id | None = Field(default=None, exclude_if=is_absent)


class PayCodeTotal(ApiModel):
    """Scheduled against actual minutes under one pay code and role."""

    pay_code_id: Id
    role_id: Id | None = Field(description="Null for non-working time.")
    scheduled: int = Field(description="Scheduled minutes.")
    actual: int = Field(description="Worked minutes.")


class OvertimeBasis(ApiModel):
    """What made a pay segment overtime (extension): the kind of the overtime rule and the
    minutes of the rule's basis the segment covers (the day's worked minutes for `daily` and
    `seventh_day`, the regular minutes of the workweek for `weekly` and of the 14-day period
    for `period`)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    kind: Literal["daily", "weekly", "period", "seventh_day"]
    from_minutes: int = Field(ge=0)
    to_minutes: int = Field(ge=0)


class TimesheetWeek(ApiModel):
    """A workweek's paid minutes inside the timesheet's window (extension): regular (paid
    breaks included), overtime (rules paying less than double) and double time."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    start_date: Timestamp = Field(description="When the workweek starts, by the work rule.")
    regular_minutes: int
    overtime_minutes: int
    double_time_minutes: int


class PaySegment(ApiModel):
    """A stretch of paid (or unpaid) time on a timesheet.

    `endDate`, `payCodes`, `overtime` and `timeRanges` are left out when absent; the nullable
    members are always present.
    """

    id: str
    type: PaySegmentType = Field(
        description="The spec does not list the values; these are the API's choice.",
        json_schema_extra=EXTENSION,
    )
    start_date: Timestamp
    item_id: str | None = None
    shift_id: str | None = None
    timecard_id: str | None = None
    end_date: Timestamp | None = Field(default=None, exclude_if=is_absent)
    pay_codes: list[str] | None = Field(
        default=None, exclude_if=is_absent, description="Ids of the pay codes paid."
    )
    overtime: list[str] | None = Field(
        default=None, exclude_if=is_absent, description="Ids of the overtime rules that applied."
    )
    time_ranges: list[str] | None = Field(default=None, exclude_if=is_absent)
    work_rule_override: str | None = None
    role: str | None = None
    overtime_basis: OvertimeBasis | None = Field(
        default=None, exclude_if=is_absent, json_schema_extra=EXTENSION,
        description="Why the segment is overtime (extension; left out for regular time): the "
        "rule's kind and the minutes of its basis the segment covers, e.g. `weekly` 2400 to "
        "2760 is hours 40 to 46 of the workweek.")


class TimesheetPunchRead(TimecardPunchRead):
    """A punch on a timesheet, with the shift it was worked for."""

    shift_id: Id | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="The shift this punch was worked for (extension): every punch of a clock-in "
        "session belongs to the shift whose start is nearest the session's clock-in, so a night "
        "shift's punches after midnight still name the shift that started the evening before; "
        "null when the session matches no shift.")
    rounded_time: Timestamp | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="The time the punch is paid at under the work rule's rounding (extension): "
        "a clock-in or clock-out rounded away from its own `time`; null when it is paid as "
        "punched. The punch itself is never changed.")


class TimesheetRead(ApiModel):
    """A provider's timesheet for a date range (extension: the spec shows only its parts)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id
    start_date: Timestamp
    end_date: Timestamp
    punches: list[TimesheetPunchRead]
    warnings: list[TimesheetWarning]
    errors: list[TimesheetError]
    pay_code_totals: list[PayCodeTotal]
    pay_segments: list[PaySegment]
    weeks: list[TimesheetWeek] = Field(
        default_factory=list, json_schema_extra=EXTENSION,
        description="Each workweek overlapping the window, with its regular, overtime and "
        "double-time minutes in the window (extension; empty when the provider's team has no "
        "work rule).")
    overtime_starts_at: Timestamp | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="When weekly or 14-day period overtime starts in the current workweek "
        "(extension): given the work so far and the shifts still scheduled; past when it has "
        "started; null when it would not, or the window does not hold now.")


class TimesheetPage(Page[TimesheetRead]):
    """A page of timesheets, one per provider of a team (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class TimesheetQuery(ListQuery):
    """Query of GET /v1/timekeeping/timesheet: one provider's timesheet, or a page of a team's.

    Exactly one of `provider` and `team` is required; paging applies to `team` only.
    """

    provider: Id | None = None
    team: Id | None = Field(default=None, validate_default=True)
    start_date: Timestamp
    end_date: Timestamp

    @field_validator("team")
    @classmethod
    def _provider_or_team(cls, team: Id | None, info: ValidationInfo) -> Id | None:
        provider = info.data.get("provider")
        if (provider is None) == (team is None) and "provider" in info.data:
            raise ValueError("give either provider or team, not both or neither")
        return team
