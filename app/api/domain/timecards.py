"""Timecard rules: the punch state machine and the pay period a timecard covers.

Next actions follow the last non-rejected punch in time order (docs/architecture.md, "Timecards"):
none or `clock_out` → `clock_in`; `clock_in` or `break_end` → `clock_out`, `break_start`;
`break_start` → `break_end`. A new punch is checked against the punches at or before its own time
(`allowed_at`), so a forgotten punch can be filled in later; it may be dated at most `MAX_AHEAD`
after now. A provider has one timecard per pay period of their pay-period template
(`{type: weekly|biweekly, startDate}`); periods start at local midnight of the template's anchor
day in the site time zone, so a period is 167, 168 or 169 hours long across a DST change.

Pure code: no Flask, no SQL, no clock (instants and zones are parameters).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any, Literal, Protocol, TypeVar
from uuid import UUID

from app.api.domain.intervals import Interval
from app.contract.common import parse_timestamp
from app.contract.timekeeping import PunchAction

NEXT_ACTIONS: Mapping[str | None, tuple[PunchAction, ...]] = {
    None: ("clock_in",),
    "clock_out": ("clock_in",),
    "clock_in": ("clock_out", "break_start"),
    "break_end": ("clock_out", "break_start"),
    "break_start": ("break_end",),
}
"""The actions allowed after a punch of each action (None: no punch yet)."""

MAX_SESSION = timedelta(hours=24)
"""The longest a clock-in stays open: punches older than this before a period do not carry over,
and an open clock-in is overdue (`no_clock_out`) this long after it at the latest."""

MAX_AHEAD = timedelta(minutes=5)
"""How far after now a punch may be dated: device clocks drift a little, shifts do not start
early by punching tomorrow."""

PERIOD_DAYS = {"weekly": 7, "biweekly": 14}

_DAY_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class PunchLike(Protocol):
    """What the state machine reads of a punch (the ORM punch and `Punch` both fit)."""

    @property
    def action(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def time(self) -> datetime: ...


P = TypeVar("P", bound=PunchLike)


@dataclass(frozen=True)
class Punch:
    """A punch as the domain sees it."""

    id: UUID
    action: PunchAction
    time: datetime
    state: str = "pending"
    timecard_id: UUID | None = None


def effective(punches: Iterable[P]) -> list[P]:
    """The punches that count, in time order: every punch but the rejected ones.

    The sort is stable, so punches at the same instant keep the order they were given in.
    """
    return sorted((p for p in punches if p.state != "rejected"), key=lambda p: p.time)


def last_effective(punches: Iterable[P]) -> P | None:
    """The last non-rejected punch in time order, or None."""
    counted = effective(punches)
    return counted[-1] if counted else None


def allowed_next(punches: Iterable[PunchLike]) -> list[PunchAction]:
    """The punch actions allowed after `punches`."""
    last = last_effective(punches)
    return list(NEXT_ACTIONS[last.action if last is not None else None])


def is_valid_next(punches: Iterable[PunchLike], action: str) -> bool:
    """Whether `action` may be punched after `punches`."""
    return action in allowed_next(punches)


def last_at(punches: Iterable[P], at: datetime) -> P | None:
    """The last non-rejected punch at or before `at`, or None."""
    return last_effective(p for p in punches if p.time <= at)


def allowed_at(punches: Iterable[PunchLike], at: datetime) -> list[PunchAction]:
    """The punch actions allowed for a punch dated `at`: those after the last counted punch at
    or before it (punches later than `at` do not matter)."""
    last = last_at(punches, at)
    return list(NEXT_ACTIONS[last.action if last is not None else None])


def too_far_ahead(at: datetime, now: datetime) -> bool:
    """Whether a punch dated `at` lies more than `MAX_AHEAD` after `now`."""
    return at > now + MAX_AHEAD


@dataclass(frozen=True)
class PayPeriodTemplate:
    """How a provider's pay periods repeat: every week or two from a local anchor day."""

    type: Literal["weekly", "biweekly"]
    anchor: date

    @property
    def days(self) -> int:
        """Length of a period in calendar days."""
        return PERIOD_DAYS[self.type]


def parse_pay_period_template(raw: Mapping[str, Any] | None, zone: tzinfo
                              ) -> PayPeriodTemplate | None:
    """Read a provider's stored template; None when there is none.

    `startDate` is a timestamp (its local day in `zone` is the anchor) or a plain `YYYY-MM-DD`.
    Raises ValueError naming what is wrong when the template is malformed.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ValueError("the pay period template must be an object {type, startDate}")
    kind = raw.get("type")
    if kind not in PERIOD_DAYS:
        raise ValueError(f"the pay period template type must be weekly or biweekly, not {kind!r}")
    start = raw.get("startDate")
    if isinstance(start, str) and _DAY_ONLY.match(start):
        try:
            anchor = date.fromisoformat(start)
        except ValueError as exc:
            raise ValueError(f"the pay period template startDate {start!r} is not a date") \
                from exc
    else:
        try:
            anchor = parse_timestamp(start).astimezone(zone).date()
        except ValueError as exc:
            raise ValueError(
                f"the pay period template startDate {start!r} is not a timestamp"
            ) from exc
    return PayPeriodTemplate(type=kind, anchor=anchor)


def local_midnight(day: date, zone: tzinfo) -> datetime:
    """The UTC instant at which `day` begins in `zone`."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def pay_period_containing(template: PayPeriodTemplate, instant: datetime, zone: tzinfo
                          ) -> Interval[datetime]:
    """The pay period `[start, end)` (UTC) that contains `instant`."""
    length = template.days
    index = (instant.astimezone(zone).date() - template.anchor).days // length

    def period(k: int) -> Interval[datetime]:
        first = template.anchor + timedelta(days=k * length)
        return Interval(local_midnight(first, zone),
                        local_midnight(first + timedelta(days=length), zone))

    found = period(index)
    # A local midnight that falls in a DST gap or fold can shift a bound past the instant.
    while instant < found.start:
        index -= 1
        found = period(index)
    while found.end <= instant:
        index += 1
        found = period(index)
    return found


def pay_periods_overlapping(template: PayPeriodTemplate, window: Interval[datetime],
                            zone: tzinfo) -> list[Interval[datetime]]:
    """Every pay period sharing time with `window`, in order."""
    periods = [pay_period_containing(template, window.start, zone)]
    while periods[-1].end < window.end:
        periods.append(pay_period_containing(template, periods[-1].end, zone))
    return periods


def local_midnights(window: Interval[datetime], zone: tzinfo) -> list[datetime]:
    """The UTC instants of local midnight strictly inside `window`."""
    day = window.start.astimezone(zone).date() + timedelta(days=1)
    result: list[datetime] = []
    while (moment := local_midnight(day, zone)) < window.end:
        if window.start < moment:
            result.append(moment)
        day += timedelta(days=1)
    return result
