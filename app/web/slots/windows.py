"""Search windows on the site's calendar: today, this week, next week or chosen days.

Days begin at local midnight (`zoneinfo`, so a daylight-saving day is 23 or 25 hours long); weeks
begin on Monday. Past time is never searched: a window that has begun starts now, rounded up to
the minute. Must not call the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

QUICK_PICKS: tuple[tuple[str, str], ...] = (
    ("today", "Today"),
    ("week", "This week"),
    ("next-week", "Next week"),
    ("dates", "Choose dates"),
)


@dataclass(frozen=True)
class Window:
    """A half-open UTC window and the local days it covers (for headings)."""

    start: datetime
    end: datetime
    first_day: date
    last_day: date


def midnight(day: date, zone: ZoneInfo) -> datetime:
    """Local midnight at the start of `day`, as a UTC instant."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def _from_now(start: datetime, now: datetime) -> datetime:
    if start >= now:
        return start
    return (now + timedelta(seconds=59)).replace(second=0, microsecond=0)


def days(first: date, last: date, zone: ZoneInfo, now: datetime | None = None) -> Window:
    """Whole local days `first`..`last`, never earlier than `now` when given."""
    start = midnight(first, zone)
    end = midnight(last + timedelta(days=1), zone)
    if now is not None:
        start = min(_from_now(start, now), end)
    return Window(start, end, first, last)


def quick(pick: str, now: datetime, zone: ZoneInfo) -> Window:
    """The window of a quick pick (`today`, `week`, `next-week`) as of `now`."""
    today = now.astimezone(zone).date()
    monday = today - timedelta(days=today.weekday())
    if pick == "today":
        return days(today, today, zone, now)
    if pick == "next-week":
        return days(monday + timedelta(days=7), monday + timedelta(days=13), zone, now)
    return days(today, monday + timedelta(days=6), zone, now)
