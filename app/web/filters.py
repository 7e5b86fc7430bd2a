"""Template filters that show instants in the site's time zone (`SHIFTDESK_TIMEZONE`).

The wire and the database speak UTC; people read local wall-clock time. Conversion happens here
only, through `zoneinfo`, so daylight-saving changes are right on either side of the switch.
Naive datetimes are refused: a time without an offset is a bug, not something to guess about.

Time off is shown as people say it (`leave_dates`): the stored end is the exclusive instant, so
a full-day request's last day is the local day before its end, written with a day count. Every
page that shows a time-off range uses that one filter. Must not call the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from flask import Flask

from app.contract.common import parse_timestamp


def to_local(value: datetime | str, zone: ZoneInfo) -> datetime:
    """The instant `value` (aware datetime or wire timestamp) on the site's wall clock."""
    instant = parse_timestamp(value)  # refuses naive datetimes and offset-less strings
    return instant.astimezone(zone)


def format_time(value: datetime | str, zone: ZoneInfo) -> str:
    """`7:05 AM` on the site's clock."""
    local = to_local(value, zone)
    return local.strftime("%I:%M %p").lstrip("0")


def format_date(value: datetime | date | str, zone: ZoneInfo) -> str:
    """`Sun 8 Mar 2026`: the site's calendar day of an instant (a plain date as it is)."""
    day = value if isinstance(value, date) and not isinstance(value, datetime) \
        else to_local(value, zone)
    return f"{day:%a} {day.day} {day:%b %Y}"


def format_datetime(value: datetime | str, zone: ZoneInfo) -> str:
    """`Sun 8 Mar 2026, 3:00 AM EDT`: day, time and the zone's abbreviation (EST or EDT)."""
    local = to_local(value, zone)
    return f"{format_date(local, zone)}, {format_time(local, zone)} {local.tzname()}"


def iso_instant(value: datetime | str) -> str:
    """The instant in ISO 8601 with its UTC offset, for `<time datetime>`."""
    return parse_timestamp(value).isoformat()


DASH = "\u2013"


@dataclass(frozen=True)
class LeaveSpan:
    """A time-off range on the site's calendar: local start and end, first and last day."""

    start: datetime
    end: datetime
    first: date
    last: date
    full_day: bool

    @property
    def day_count(self) -> int:
        """Calendar days from the first to the last, both included (DST days count as one)."""
        return (self.last - self.first).days + 1

    @property
    def days(self) -> list[date]:
        """Every local day the range touches, first to last."""
        return [self.first + timedelta(days=n) for n in range(self.day_count)]


def _field(value: Any, name: str, wire: str) -> Any:
    """An attribute of a contract model, or a wire member of a dict (a problem's `conflicts`)."""
    if isinstance(value, dict):
        return value.get(wire, value.get(name))
    return getattr(value, name, None)


def is_full_day(value: Any) -> bool:
    """Whether a request blocks whole days: as stored; for older requests, whether its policy
    accrues in days; when neither is known (a problem's member), whether it runs from a local
    midnight to a local midnight — decided by the caller's zone, see `leave_span`."""
    full = _field(value, "is_full_day", "isFullDay")
    if full is not None:
        return bool(full)
    policy = _field(value, "policy", "policy")
    unit = _field(policy, "accrual_unit", "accrualUnit") if policy is not None else None
    return unit == "days"


def leave_span(value: Any, zone: ZoneInfo) -> LeaveSpan:
    """The range of a time-off request (a `TimeOffRequestRead`, or a dict with wire members
    `startDate`/`endDate`) on the site's calendar.

    The stored end is exclusive: a full-day request's last day is the local day before its end
    (the end's own day when the end is not a local midnight).
    """
    start = to_local(_field(value, "start_date", "startDate"), zone)
    end = to_local(_field(value, "end_date", "endDate"), zone)
    known = _field(value, "is_full_day", "isFullDay") is not None or \
        _field(value, "policy", "policy") is not None
    full = is_full_day(value) if known else start.time() == end.time() == time(0)
    first = start.date()
    if full:
        last = end.date() - timedelta(days=1) if end.time() == time(0) else end.date()
    else:
        last = end.date()
    return LeaveSpan(start=start, end=end, first=first, last=max(first, last), full_day=full)


def _day(day: date, *, month: bool = True, year: bool = False) -> str:
    text = f"{day:%a} {day.day}"
    if month:
        text += f" {day:%b}"
    return text + (f" {day.year}" if year else "")


def format_leave(value: Any, zone: ZoneInfo, today: date | None = None) -> str:
    """A time-off range as people say it.

    `Tue 8 - Wed 9 Dec · 2 days`, `Mon 15 Dec · 1 day`, `Wed 31 Dec 2025 - Fri 2 Jan 2026 ·
    3 days` (with en dashes); part of a day shows its times: `Mon 15 Dec, 9:00 AM - 1:00 PM`.
    The year is written when the range is not in `today`'s year or spans two (always, without
    `today`).
    """
    span = leave_span(value, zone)
    first, last = span.first, span.last
    year = today is None or first.year != last.year or first.year != today.year
    if not span.full_day:
        begin = f"{_day(first, year=year)}, {format_time(span.start, zone)}"
        if first == last:
            return f"{begin} {DASH} {format_time(span.end, zone)}"
        return f"{begin} {DASH} {_day(last, year=year)}, {format_time(span.end, zone)}"
    count = f"{span.day_count} day{'' if span.day_count == 1 else 's'}"
    if first == last:
        return f"{_day(first, year=year)} \u00b7 {count}"
    if first.year != last.year:
        return f"{_day(first, year=True)} {DASH} {_day(last, year=True)} \u00b7 {count}"
    same_month = first.month == last.month
    return (f"{_day(first, month=not same_month)} {DASH} {_day(last, year=year)}"
            f" \u00b7 {count}")


def site_today(zone: ZoneInfo) -> date:
    """Today on the site's calendar."""
    return datetime.now(UTC).astimezone(zone).date()


def install(app: Flask, zone: ZoneInfo) -> None:
    """Register the time filters on `app`'s templates (`leave_dates` also as a global)."""

    def leave_dates(value: Any) -> str:
        return format_leave(value, zone, site_today(zone))

    app.jinja_env.filters.update(
        local_time=lambda value: format_time(value, zone),
        local_date=lambda value: format_date(value, zone),
        local_datetime=lambda value: format_datetime(value, zone),
        iso_instant=iso_instant,
        leave_dates=leave_dates,
    )
    app.jinja_env.globals["leave_dates"] = leave_dates
