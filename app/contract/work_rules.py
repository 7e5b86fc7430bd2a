"""Pay rules on the wire (extension): overtime rules, rounding rules, work rules with their dated
versions, the ready-made presets, and a team's rule.

Shape only: which thresholds a kind allows, whether an `effectiveFrom` starts a workweek, pay
codes, sign-offs and overrides are decided in `app.api`.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field

from app.contract.common import (
    EXTENSION,
    ApiModel,
    Id,
    ListQuery,
    NonEmptyStr,
    Omittable,
    Page,
    Timestamp,
)

OvertimeKind = Literal["daily", "weekly", "period", "seventhDay"]
"""What an overtime threshold counts: minutes of a workday, of a workweek, of a 14-day period
(the hospital 8-and-80 system, FLSA section 7(j)), or of the seventh consecutive day worked in
one workweek."""
RoundingMode = Literal["nearest", "down", "up"]
PresetId = Literal["us-federal", "us-hospital-8-80", "california"]

MAX_THRESHOLD_MINUTES = 20160
"""The largest threshold of any kind (a 14-day period); each kind has its own limit."""
EARLIEST_DAY = date(1900, 1, 1)
LATEST_DAY = date(2999, 12, 31)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


_RANGE = f"must be a date YYYY-MM-DD between {EARLIEST_DAY} and {LATEST_DAY}"


def _parse_day(value: Any) -> Any:
    """Take only `YYYY-MM-DD` (no time, no zone); anything else gets one message."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _DAY.fullmatch(value):
        raise ValueError(_RANGE)
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(_RANGE) from exc


def _supported_day(value: date) -> date:
    if not EARLIEST_DAY <= value <= LATEST_DAY:
        raise ValueError(_RANGE)
    return value


Day = Annotated[date, BeforeValidator(_parse_day), AfterValidator(_supported_day),
                Field(description="A calendar date, YYYY-MM-DD, between 1900-01-01 and "
                                  "2999-12-31.", examples=["2026-03-01"])]
"""A local calendar date (no time, no zone)."""
LocalTime = Annotated[str, Field(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$", min_length=5,
                                 max_length=5, examples=["00:00", "07:00"])]
"""A local time of day, HH:MM on the 24-hour clock."""
Minutes = Annotated[int, Field(ge=0, le=1440)]
Weekday = Annotated[int, Field(ge=0, le=6, description="0 Monday … 6 Sunday.")]
TimeZoneName = Annotated[str, Field(min_length=1, max_length=64, examples=["America/New_York"],
                                    description="An IANA time zone name.")]

_EXT = ConfigDict(json_schema_extra=EXTENSION)


# Overtime rules ----------------------------------------------------------------------------

class OvertimeRuleRead(ApiModel):
    """An overtime rule (extension): minutes beyond `thresholdMinutes` pay under `payCodeId`."""

    model_config = _EXT

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int = Field(description="Optimistic-locking version; send it back on PATCH.")
    name: str
    kind: OvertimeKind
    threshold_minutes: int = Field(description="Minutes of the day, week, period or seventh "
                                               "day after which this rule pays.")
    pay_code_id: Id
    multiplier: str = Field(description="The pay code's value as an exact decimal, e.g. 1.5.")


class OvertimeRulePage(Page[OvertimeRuleRead]):
    """A page of overtime rules (extension)."""

    model_config = _EXT


class OvertimeRuleListQuery(ListQuery):
    """Query of GET /v1/settings/overtime-rules."""


class OvertimeRuleCreate(ApiModel):
    """Body of POST /v1/settings/overtime-rules.

    `thresholdMinutes` may be at most 1440 for `daily` and `seventhDay`, 10080 for `weekly`
    and 20160 for `period`.
    """

    model_config = _EXT

    name: NonEmptyStr = Field(max_length=200)
    kind: OvertimeKind
    threshold_minutes: int = Field(ge=0, le=MAX_THRESHOLD_MINUTES)
    pay_code_id: Id


class OvertimeRuleUpdate(ApiModel):
    """Body of PATCH /v1/settings/overtime-rules/{overtimeRuleId}: members left out keep their
    value. Work rule versions keep the snapshot they took; a new version takes the new values."""

    model_config = _EXT

    name: Omittable[Annotated[NonEmptyStr, Field(max_length=200)]]
    kind: Omittable[OvertimeKind]
    threshold_minutes: Omittable[Annotated[int, Field(ge=0, le=MAX_THRESHOLD_MINUTES)]]
    pay_code_id: Omittable[Id]
    version: Omittable[Annotated[int, Field(ge=0)]] = Field(
        description="The version being changed; an outdated one fails with `version-conflict`.")


# Rounding rules ----------------------------------------------------------------------------

class RoundingRuleRead(ApiModel):
    """A rounding rule (extension) for clock-in and clock-out punches; seconds are dropped first,
    meal and break punches are never rounded."""

    model_config = _EXT

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    name: str
    interval_minutes: int
    mode: RoundingMode


class RoundingRulePage(Page[RoundingRuleRead]):
    """A page of rounding rules (extension)."""

    model_config = _EXT


class RoundingRuleListQuery(ListQuery):
    """Query of GET /v1/settings/rounding-rules."""


Interval = Annotated[int, Field(ge=1, le=60, description="Minutes; must divide 60 (5, 6, 10, "
                                                         "15 …).")]


class RoundingRuleCreate(ApiModel):
    """Body of POST /v1/settings/rounding-rules."""

    model_config = _EXT

    name: NonEmptyStr = Field(max_length=200)
    interval_minutes: Interval
    mode: RoundingMode


class RoundingRuleUpdate(ApiModel):
    """Body of PATCH /v1/settings/rounding-rules/{roundingRuleId}; members left out are kept."""

    model_config = _EXT

    name: Omittable[Annotated[NonEmptyStr, Field(max_length=200)]]
    interval_minutes: Omittable[Interval]
    mode: Omittable[RoundingMode]
    version: Omittable[Annotated[int, Field(ge=0)]]


# Work rules --------------------------------------------------------------------------------

class OvertimeSnapshot(ApiModel):
    """An overtime rule as a work rule version took it (later edits do not change it)."""

    model_config = _EXT

    id: Id
    name: str
    kind: OvertimeKind
    threshold_minutes: int
    pay_code_id: Id
    multiplier: str


class RoundingSnapshot(ApiModel):
    """A rounding rule as a work rule version took it."""

    model_config = _EXT

    id: Id
    name: str
    interval_minutes: int
    mode: RoundingMode


class WorkRuleVersionRead(ApiModel):
    """What a work rule says from `effectiveFrom` (at the workweek's start time, local) until
    the next version starts."""

    model_config = _EXT

    id: Id
    effective_from: date
    time_zone: str
    week_start_day: int = Field(description="0 Monday … 6 Sunday.")
    week_start_time: str
    day_start_time: str
    period_anchor: date | None = Field(description="First day of a 14-day period (period rules).")
    rounding: RoundingSnapshot | None
    overtime: list[OvertimeSnapshot]
    meal_deduct_minutes: int | None = Field(
        description="Minutes deducted for an unpunched meal; null with `mealAfterMinutes` when "
                    "meals are punched.")
    meal_after_minutes: int | None
    min_unpaid_break_minutes: int = Field(
        description="Breaks shorter than this count as worked time.")
    counting_pay_code_ids: list[Id] = Field(
        description="Non-worked pay codes (holiday, PTO) that count toward thresholds.")


class WorkRuleRead(ApiModel):
    """A work rule (extension): `current` is the version in effect on `asOf` (default today),
    null when none is yet (then every minute is regular); `versions` lists all by date."""

    model_config = _EXT

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    name: str
    current: WorkRuleVersionRead | None
    versions: list[WorkRuleVersionRead]


class WorkRulePage(Page[WorkRuleRead]):
    """A page of work rules (extension)."""

    model_config = _EXT


class WorkRuleListQuery(ListQuery):
    """Query of GET /v1/settings/work-rules."""

    as_of: Day | None = Field(default=None, description="Which version is `current`; default "
                                                        "today.")


class WorkRuleGetQuery(ApiModel):
    """Query of GET /v1/settings/work-rules/{workRuleId}."""

    as_of: Day | None = Field(default=None, description="Which version is `current`; default "
                                                        "today.")


class PresetPayCodes(ApiModel):
    """The pay codes a preset's overtime rules pay under."""

    model_config = _EXT

    overtime: Id | None = Field(default=None, description="Default: the hours pay code worth "
                                                          "1.5.")
    double_time: Id | None = Field(default=None, description="Default: the hours pay code "
                                                             "worth 2.0.")


class RoundingSpec(ApiModel):
    """Rounding named by what it does (extension): the rounding rule with this interval and
    mode is used (the first by name), made when there is none."""

    interval_minutes: Interval
    mode: RoundingMode


class WorkRuleCreate(ApiModel):
    """Body of POST /v1/settings/work-rules: a rule with its first version.

    With `preset`, the preset's overtime rules are created (paying under `payCodes`) and used,
    and `overtimeRuleIds` must be left out; the other members still apply.
    """

    model_config = _EXT

    name: NonEmptyStr = Field(max_length=200)
    preset: PresetId | None = None
    pay_codes: PresetPayCodes | None = None
    effective_from: Day | None = Field(
        default=None, description="First day of a workweek; default: the start of this "
                                  "workweek.")
    time_zone: TimeZoneName
    week_start_day: Weekday = 6
    week_start_time: LocalTime = "00:00"
    day_start_time: LocalTime = "00:00"
    period_anchor: Day | None = None
    rounding_rule_id: Id | None = None
    rounding: RoundingSpec | None = Field(default=None, description=(
        "Instead of `roundingRuleId`: the rounding by interval and mode (a preview makes "
        "nothing)."))
    overtime_rule_ids: list[Id] | None = Field(default=None, max_length=20)
    meal_deduct_minutes: Minutes | None = None
    meal_after_minutes: Minutes | None = None
    min_unpaid_break_minutes: Minutes = 30
    counting_pay_code_ids: list[Id] = Field(default_factory=list, max_length=50)


class WorkRuleUpdate(ApiModel):
    """Body of PATCH /v1/settings/work-rules/{workRuleId}: a new version from `effectiveFrom`.

    Members left out are taken from the version in effect on that date; `overtimeRuleIds` and
    `roundingRuleId`, when sent, take fresh snapshots of those rules. A version starting on the
    same date that has not taken effect yet is replaced. `name` renames the rule (not dated).
    """

    model_config = _EXT

    effective_from: Day
    version: Omittable[Annotated[int, Field(ge=0)]]
    name: Omittable[Annotated[NonEmptyStr, Field(max_length=200)]]
    time_zone: Omittable[TimeZoneName]
    week_start_day: Omittable[Weekday]
    week_start_time: Omittable[LocalTime]
    day_start_time: Omittable[LocalTime]
    period_anchor: Day | None = None
    rounding_rule_id: Id | None = None
    rounding: RoundingSpec | None = Field(default=None, description=(
        "Instead of `roundingRuleId`: the rounding by interval and mode."))
    overtime_rule_ids: Omittable[Annotated[list[Id], Field(max_length=20)]]
    meal_deduct_minutes: Minutes | None = None
    meal_after_minutes: Minutes | None = None
    min_unpaid_break_minutes: Omittable[Minutes]
    counting_pay_code_ids: Omittable[Annotated[list[Id], Field(max_length=50)]]


class PresetOvertime(ApiModel):
    """One overtime rule of a preset."""

    model_config = _EXT

    name: str
    kind: OvertimeKind
    threshold_minutes: int
    multiplier: str


class WorkRulePresetRead(ApiModel):
    """A ready-made rule set an admin can pick and then edit."""

    model_config = _EXT

    id: PresetId
    name: str
    description: str = Field(description="What it pays and the law it follows.")
    requires_period_anchor: bool
    overtime: list[PresetOvertime]


class WorkRulePresetList(ApiModel):
    """Every preset (extension)."""

    model_config = _EXT

    items: list[WorkRulePresetRead]


class TeamWorkRule(ApiModel):
    """Body of PUT /v1/teams/{teamId}/work-rule: the team's rule, or null for none."""

    model_config = _EXT

    work_rule_id: Id | None
