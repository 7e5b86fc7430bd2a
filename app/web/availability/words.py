"""Availability in words, shared by the provider's page and the manager's schedule: a pattern
range (`7:00 AM - 3:00 PM`, `all day`) and a window on one local day.

Times go through the shared filters (`format_time`, `format_time_range`); nothing formats by hand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from app.contract.availability import AvailabilityWindow
from app.web.filters import DASH, format_time, format_time_range

KIND_WORDS = {"unavailable": "Unavailable", "preferred": "Prefers", "available": "Available"}


def _at(clock: str) -> datetime:
    hours, minutes = (int(part) for part in clock.split(":"))
    return datetime(2000, 1, 3, tzinfo=UTC) + timedelta(hours=hours, minutes=minutes)


def clock_words(clock: str) -> str:
    """A wall-clock `HH:MM` as the pages write a time (`7:00 AM`; `24:00` is midnight)."""
    if clock == "24:00":
        return "midnight"
    return format_time(_at(clock), ZoneInfo("UTC"))


def range_words(start: str, end: str) -> str:
    """A pattern range in words: `all day`, or `7:00 AM - 3:00 PM`."""
    if start == "00:00" and end == "24:00":
        return "all day"
    return f"{clock_words(start)} {DASH} {clock_words(end)}"


def day_windows(windows: list[AvailabilityWindow], day: date,
                zone: ZoneInfo) -> list[tuple[str, str, str]]:
    """The windows touching local `day`, as `(kind, words, reason)`: "Unavailable all day",
    "Unavailable 7:00 AM - 3:00 PM", "Prefers 9:00 AM - 5:00 PM"."""
    begin = datetime.combine(day, time(0), tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone)
    found: list[tuple[str, str, str]] = []
    for w in windows:
        if not (w.start_date < end and begin < w.end_date):
            continue
        first, last = max(w.start_date, begin), min(w.end_date, end)
        if first == begin and last == end:
            when = "all day"
        elif last == end:  # to the day's end: "3:00 PM - midnight", not "12:00 AM +1"
            when = f"{format_time(first, zone)} {DASH} midnight"
        else:
            when = format_time_range(first, last, zone)
        found.append((w.kind, f"{KIND_WORDS[w.kind]} {when}", w.reason))
    return found


def reason_words(window: AvailabilityWindow, zone: ZoneInfo) -> str:
    """Why a window is there, for a warning: the exception's note, or the pattern's range."""
    if window.source == "exception":
        return window.reason
    return (f"their weekly pattern, "
            f"{format_time_range(window.start_date, window.end_date, zone)}")


__all__ = ["KIND_WORDS", "clock_words", "day_windows", "range_words", "reason_words"]
