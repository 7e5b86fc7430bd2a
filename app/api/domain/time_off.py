"""Time-off rules: hours off per local day, paid hours, the request state machine, the time a
request blocks, and what approval does to the provider's overlapping shifts.

Hours off per day (`daily_hours`): the request `[start, end)` is cut at every local midnight of
the site zone (DST-aware, so a local day lasts 23, 24 or 25 hours). A full-day request takes a full
day off on each local day it touches; otherwise a day counts the real hours of the request inside
it. Either way a day is capped at a full day: the provider's daily hours, or `FULL_DAY_HOURS`
when they have none, and never more than 24 (the wire's limit).

Paid hours (`paid_hours`): 0 under an unpaid policy type (`UNPAID_POLICY_TYPES`); under a policy
that accrues in days, one full day for each day with time off (a balance counted in days is used
a whole day at a time); otherwise the sum of the hours off per day.

States: `pending → approved | rejected | cancelled` and `approved → cancelled`; nothing else
moves. Cancelling an approved request does not restore shifts its approval deleted.

One leave at a time (`overlapping`): a provider's pending and approved requests (`HELD_STATES`)
hold their blocked windows; a new request may not overlap any of them. Two part-day requests on
one day at different times do not overlap.

Pure code: no Flask, no SQL, no clock. Days are `date`s of the site zone; the API writes each as
that date's midnight with a `Z` (`YYYY-MM-DDT00:00:00.000Z`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from app.api.domain.intervals import Interval, overlap
from app.contract.common import EARLIEST, LATEST, SUPPORTED_RANGE
from app.contract.problems import FieldError

FULL_DAY_HOURS = 8.0
"""Hours of a full day off for a provider without their own daily hours."""

MAX_DAY_HOURS = 24.0
"""The most hours off one day may count (the wire's limit on a per-day entry)."""

UNPAID_POLICY_TYPES = frozenset({"unpaid-day", "absence"})
"""Policy types whose time off is never paid out."""

Action = Literal["approve", "reject", "cancel"]
"""A decision on a time-off request."""

TRANSITIONS: dict[str, dict[str, str]] = {
    "approve": {"pending": "approved"},
    "reject": {"pending": "rejected"},
    "cancel": {"pending": "cancelled", "approved": "cancelled"},
}
"""For each action, the states it may leave and the state it leads to."""

HELD_STATES = frozenset({"pending", "approved"})
"""States in which a request holds its time: a second request may not overlap it."""

MAX_REQUEST_DAYS = 366
"""The longest a request may last: a year of days (it stores a row per day)."""


_HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class DayOff:
    """Hours off on one local calendar day."""

    day: date
    hours: float


@dataclass(frozen=True)
class ConflictPlan:
    """What approval does to each overlapping shift of the provider."""

    delete: bool
    callout: bool
    open_copy: bool


PLANS: dict[str, ConflictPlan] = {
    "delete": ConflictPlan(delete=True, callout=False, open_copy=False),
    "deleteWithOpen": ConflictPlan(delete=True, callout=False, open_copy=True),
    "callout": ConflictPlan(delete=False, callout=True, open_copy=False),
    "calloutWithOpen": ConflictPlan(delete=False, callout=True, open_copy=True),
    "keep": ConflictPlan(delete=False, callout=False, open_copy=False),
    "keepWithOpen": ConflictPlan(delete=False, callout=False, open_copy=True),
}
"""The plan of each conflict resolution strategy."""


def next_state(current: str, action: str) -> str | None:
    """Return the state `action` moves a request in `current` to, or None when it may not."""
    return TRANSITIONS.get(action, {}).get(current)


def window_errors(start: datetime, end: datetime) -> list[FieldError]:
    """Check a request's window (its end already after its start): within the supported years
    and at most `MAX_REQUEST_DAYS` long."""
    errors: list[FieldError] = []
    for path, moment in (("/startDate", start), ("/endDate", end)):
        if not EARLIEST <= moment <= LATEST:
            errors.append(FieldError(path=path, message=f"must lie {SUPPORTED_RANGE}"))
    if not errors and end - start > timedelta(days=MAX_REQUEST_DAYS):
        errors.append(FieldError(path="/endDate", message=f"a request may last at most "
                                                          f"{MAX_REQUEST_DAYS} days; split it"))
    return errors


def full_day_hours(provider_daily_hours: float | None) -> float:
    """Return the hours of a full day off: the provider's own (if positive) or the default."""
    hours = provider_daily_hours if provider_daily_hours and provider_daily_hours > 0 \
        else FULL_DAY_HOURS
    return min(hours, MAX_DAY_HOURS)


def midnight(day: date, zone: ZoneInfo) -> datetime:
    """Return the instant (UTC) local midnight starts `day` in `zone`."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def day_window(day: date, zone: ZoneInfo) -> Interval[datetime]:
    """Return a local day as the UTC interval from its midnight to the next one."""
    return Interval(midnight(day, zone), midnight(day + timedelta(days=1), zone))


def local_days(start: datetime, end: datetime, zone: ZoneInfo) -> list[date]:
    """Return every local day `[start, end)` touches, in order (none when it is empty)."""
    if end <= start:
        return []
    first = start.astimezone(zone).date()
    last = (end - timedelta(microseconds=1)).astimezone(zone).date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _hours(span: timedelta) -> float:
    return round(span / _HOUR, 4)


def daily_hours(start: datetime, end: datetime, *, zone: ZoneInfo, is_full_day: bool,
                full_day: float) -> list[DayOff]:
    """Return the hours off on each local day of `[start, end)` (see the module docstring)."""
    window = Interval(start, end)
    cap = min(full_day, MAX_DAY_HOURS)
    days: list[DayOff] = []
    for day in local_days(start, end, zone):
        if is_full_day:
            hours = cap
        else:
            inside = overlap(window, day_window(day, zone))
            hours = min(_hours(inside.end - inside.start) if inside else 0.0, cap)
        days.append(DayOff(day, hours))
    return days


def paid_hours(days: Sequence[DayOff], *, policy_type: str, accrual_unit: str | None,
               full_day: float) -> float:
    """Return the hours paid out for `days` off under a policy (see the module docstring)."""
    if policy_type in UNPAID_POLICY_TYPES:
        return 0.0
    if accrual_unit == "days":
        return round(sum(1 for d in days if d.hours > 0) * min(full_day, MAX_DAY_HOURS), 4)
    return round(sum(d.hours for d in days), 4)


def given_days_errors(given: Sequence[DayOff], allowed: Sequence[date]) -> list[FieldError]:
    """Check hours off a client gave: at least one, each on a day of the request, none twice."""
    if not given:
        return [FieldError(path="/dailyHours", message="name at least one day, or leave it out")]
    errors: list[FieldError] = []
    seen: dict[date, int] = {}
    span = f"{allowed[0].isoformat()} to {allowed[-1].isoformat()}" if allowed else "none"
    for index, entry in enumerate(given):
        if entry.day not in allowed:
            errors.append(FieldError(
                path=f"/dailyHours/{index}/date",
                message=f"{entry.day.isoformat()} is not a day of the request (days: {span})"))
        elif entry.day in seen:
            errors.append(FieldError(
                path=f"/dailyHours/{index}/date",
                message=f"{entry.day.isoformat()} is already given by entry {seen[entry.day]}"))
        else:
            seen[entry.day] = index
    return errors


def is_full_day_default(is_full_day: bool | None, accrual_unit: str | None) -> bool:
    """Return whether a request blocks whole days: as given, else when its policy counts days."""
    return is_full_day if is_full_day is not None else accrual_unit == "days"


def blocked_window(start: datetime, end: datetime, *, is_full_day: bool,
                   zone: ZoneInfo) -> Interval[datetime]:
    """Return the time a request blocks: its own interval, widened to whole local days when it
    is a full-day request."""
    if not is_full_day:
        return Interval(start, end)
    days = local_days(start, end, zone)
    return Interval(midnight(days[0], zone), midnight(days[-1] + timedelta(days=1), zone))


def conflicts(window: Interval[datetime],
              shifts: Sequence[tuple[datetime, datetime, bool]]) -> list[int]:
    """Return the indexes of the shifts `(start, end, is_callout)` that approval acts on: those
    overlapping `window` that are not already callouts (the provider is not working them)."""
    return [index for index, (start, end, is_callout) in enumerate(shifts)
            if not is_callout and start < window.end and window.start < end]


def overlapping(window: Interval[datetime],
                held: Sequence[tuple[Interval[datetime], str]]) -> list[int]:
    """Return the indexes of the requests `(blocked window, status)` a new request's blocked
    `window` collides with: those still holding their time that overlap it (touching is fine)."""
    return [index for index, (other, status) in enumerate(held)
            if status in HELD_STATES and other.overlaps(window)]
