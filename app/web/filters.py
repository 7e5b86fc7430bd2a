"""Template filters: one language for time (and for states) on every page.

The wire and the database speak UTC; people read local wall-clock time. Conversion happens here
only, through `zoneinfo`, so daylight-saving changes are right on either side of the switch.
Naive datetimes are refused: a time without an offset is a bug, not something to guess about.

The rules (docs/style.md, "Time on the page"), all decided against the site's today:
- a day reads `Today`, `Tomorrow` or `Yesterday` when it is one, else `Wed 2 Dec`; the year is
  written only outside the current year (`Tue 2 Feb 2027`);
- a time reads `7:05 AM`; the zone is not repeated (the footer names it once per page), except
  in the hour that happens twice when the clocks fall back, where `1:30 AM EDT` and
  `1:30 AM EST` tell the two apart;
- a range of times reads `7:00 PM - 7:30 AM +1` (an en dash) when it ends on a later local day;
- a duration reads `7h 30m`, `45m`, `12h`, `0m`, `34h 41m` (never days), `-1h 5m`
  (a true minus sign).

Time off is shown as people say it (`leave_dates`): the stored end is the exclusive instant, so
a full-day request's last day is the local day before its end, written with a day count. Every
page that shows a time-off range uses that one filter. Must not call the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from flask import Flask
from markupsafe import Markup, escape

from app.contract.common import parse_timestamp

DASH = "\u2013"


def to_local(value: datetime | str, zone: ZoneInfo) -> datetime:
    """The instant `value` (aware datetime or wire timestamp) on the site's wall clock."""
    instant = parse_timestamp(value)  # refuses naive datetimes and offset-less strings
    return instant.astimezone(zone)


def site_today(zone: ZoneInfo) -> date:
    """Today on the site's calendar."""
    return datetime.now(UTC).astimezone(zone).date()


def _repeated(local: datetime) -> bool:
    """Whether the wall-clock time of `local` happens twice (the hour the clocks fall back)."""
    return local.replace(fold=0).utcoffset() != local.replace(fold=1).utcoffset()


def format_time(value: datetime | str, zone: ZoneInfo) -> str:
    """`7:05 AM` on the site's clock; `1:30 AM EST` in the hour that happens twice."""
    return _clock_time(parse_timestamp(value).astimezone(UTC), zone)


@lru_cache(maxsize=4096)
def _clock_time(instant: datetime, zone: ZoneInfo) -> str:
    """`format_time` of a UTC instant, remembered: a schedule page writes each shift's times
    several times over. (Keyed by the UTC instant: two local times an hour apart in the hour the
    clocks fall back compare and hash alike.)"""
    local = instant.astimezone(zone)
    shown = f"{local.hour % 12 or 12}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    return f"{shown} {local.tzname()}" if _repeated(local) else shown


RELATIVE_DAYS = {-1: "Yesterday", 0: "Today", 1: "Tomorrow"}


def format_date(value: datetime | date | str, zone: ZoneInfo, today: date | None = None, *,
                relative: bool = True) -> str:
    """The site's calendar day of an instant (a plain date as it is): `Today`, `Tomorrow`,
    `Yesterday`, else `Sun 8 Mar`, with the year only outside `today`'s year (`Tue 2 Feb 2027`).

    `relative=False` always names the day (`Week of Mon 23 Nov`, a day next to `(today)`).
    """
    day = value if isinstance(value, date) and not isinstance(value, datetime) \
        else to_local(value, zone).date()
    today = today or site_today(zone)
    if relative and (day - today).days in RELATIVE_DAYS:
        return RELATIVE_DAYS[(day - today).days]
    return _day(day, year=day.year != today.year)


def format_datetime(value: datetime | str, zone: ZoneInfo, today: date | None = None, *,
                    relative: bool = True) -> str:
    """`Today, 3:00 AM`, `Sun 8 Mar, 3:00 AM`, `Tue 2 Feb 2027, 9:15 AM`: day and time, the zone
    only in the hour that happens twice (`Sun 1 Nov, 1:30 AM EST`)."""
    local = to_local(value, zone)
    return f"{format_date(local, zone, today, relative=relative)}, {format_time(local, zone)}"


def format_time_range(start: datetime | str, end: datetime | str, zone: ZoneInfo) -> str:
    """`7:00 AM - 3:00 PM`; `7:00 PM - 7:30 AM +1` (en dashes) when the end is on the next local day
    (`+2` two days on), across daylight-saving nights too."""
    first, last = to_local(start, zone), to_local(end, zone)
    text = f"{format_time(first, zone)} {DASH} {format_time(last, zone)}"
    later = next_day_count(first, last, zone)
    return f"{text} +{later}" if later > 0 else text


def clock_range(start: datetime | str, end: datetime | str, zone: ZoneInfo) -> Markup:
    """`7:00 PM - 7:30 AM +1` (an en dash) as markup: each end a `<time datetime>`, the "+1"
    read out as "+1 day". What `time_range` of `_macros/time.html` writes when no other day is
    named, built here because a schedule page writes it for every shift."""
    later = next_day_count(start, end, zone)
    tail = (f' <span class="next-day">+{later}<span class="visually-hidden"> '
            f'day{"s" if later > 1 else ""}</span></span>') if later > 0 else ""
    return Markup(f'<time datetime="{escape(iso_instant(start))}">'
                  f'{escape(format_time(start, zone))}</time> {DASH} '
                  f'<time datetime="{escape(iso_instant(end))}">{escape(format_time(end, zone))}'
                  f'</time>{tail}')


def next_day_count(start: datetime | str, end: datetime | str, zone: ZoneInfo) -> int:
    """How many local days after `start`'s day `end` falls (0 on the same day)."""
    return (to_local(end, zone).date() - to_local(start, zone).date()).days


MINUS = "\u2212"


def format_headcount(value: float) -> str:
    """A number of staff as people say it: 2, 1.5, 0.25 (the API gives 4 decimal places)."""
    return f"{value:g}" if abs(value) >= 0.00005 else "0"


def format_minutes(minutes: int | float | None) -> str:
    """A duration in the one style of every page: `7h 30m`, `45m`, `12h`, `0m`, `34h 41m`,
    `-1h 5m` (with a true minus sign). Fractions of a minute are rounded."""
    total = round(minutes or 0)
    hours, rest = divmod(abs(total), 60)
    parts = ([f"{hours}h"] if hours else []) + ([f"{rest}m"] if rest or not hours else [])
    return (MINUS if total < 0 else "") + " ".join(parts)


def format_hours(hours: int | float | None) -> str:
    """A duration given in hours (the API's `paidHours`, `duration`) in the same style:
    `8h`, `3h 30m`."""
    return format_minutes((hours or 0) * 60)


def iso_duration(seconds: int) -> str:
    """`PT7H5M12S`: a length of time for `<time datetime>` (the clock's timers tick from it)."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    return f"PT{hours}H{rest // 60}M{rest % 60}S"


def iso_instant(value: datetime | str) -> str:
    """The instant in ISO 8601 with its UTC offset, for `<time datetime>`."""
    return parse_timestamp(value).isoformat()


# One word per state, whoever reads it (provider, manager, scheduler): kind → API value → word.
STATUS_WORDS: dict[str, dict[str, str]] = {
    "request": {"pending": "Pending", "approved": "Approved", "rejected": "Declined",
                "cancelled": "Cancelled", "pending_sync": "Being recorded",
                "sync_failed": "Not recorded"},
    "punch": {"pending": "Pending review", "approved": "Approved", "rejected": "Rejected"},
    "appointment": {"upcoming": "Upcoming", "occurred": "Occurred", "no-show": "No-show",
                    "cancelled": "Cancelled", "re-scheduled": "Re-scheduled"},
    "swap": {"open": "Open", "accepted": "Waiting for a manager", "completed": "Swapped",
             "withdrawn": "Withdrawn", "expired": "Expired", "closed": "Closed"},
    "swap_application": {"pending": "Waiting for an answer", "accepted": "Waiting for a manager",
                         "approved": "Approved", "rejected": "Rejected", "declined": "Declined",
                         "withdrawn": "Withdrawn", "closed": "Closed"},
}


def status_word(value: Any, kind: str = "request") -> str:
    """The word people read for a state of a time-off request, a punch or an appointment;
    `Unknown` for a state this version does not know (never the API's own word)."""
    return STATUS_WORDS[kind].get(str(value), "Unknown")


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


def install(app: Flask, zone: ZoneInfo) -> None:
    """Register the time filters on `app`'s templates (`leave_dates` also as a global)."""

    def leave_dates(value: Any) -> str:
        return format_leave(value, zone, site_today(zone))

    def local_date(value: Any, relative: bool = True) -> str:
        return format_date(value, zone, site_today(zone), relative=relative)

    def local_datetime(value: Any, relative: bool = True) -> str:
        return format_datetime(value, zone, site_today(zone), relative=relative)

    app.jinja_env.filters.update(
        local_time=lambda value: format_time(value, zone),
        local_date=local_date,
        local_datetime=local_datetime,
        time_range=lambda start, end: format_time_range(start, end, zone),
        clock_range=lambda start, end: clock_range(start, end, zone),
        next_days=lambda start, end: next_day_count(start, end, zone),
        hours_minutes=format_minutes,
        duration_hours=format_hours,
        status_word=status_word,
        iso_instant=iso_instant,
        iso_duration=iso_duration,
        leave_dates=leave_dates,
    )
    app.jinja_env.globals["leave_dates"] = leave_dates
