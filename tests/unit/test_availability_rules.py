"""The availability rule: weekly patterns per local date (DST-safe), exceptions overriding them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from app.api.domain.availability import (
    DayException,
    Pattern,
    WeeklyRule,
    rule_errors,
    unavailable_overlaps,
    windows,
)

NY = ZoneInfo("America/New_York")


def _pattern(*rules: WeeklyRule, start: date = date(2026, 1, 1)) -> Pattern:
    return Pattern(start, tuple(rules))


def test_windows_read_the_pattern_in_local_time_on_both_sides_of_the_spring_change():
    pattern = _pattern(WeeklyRule("sunday", "07:00", "15:00", "unavailable"))
    # Sun 1 Mar 2026 is EST (UTC-5); Sun 8 Mar the clocks spring forward (EDT, UTC-4).
    found = windows([pattern], [], first=date(2026, 3, 1), last=date(2026, 3, 8), zone=NY)
    assert [(w.start, w.end) for w in found] == [
        (datetime(2026, 3, 1, 12, tzinfo=UTC), datetime(2026, 3, 1, 20, tzinfo=UTC)),
        (datetime(2026, 3, 8, 11, tzinfo=UTC), datetime(2026, 3, 8, 19, tzinfo=UTC)),
    ]


def test_whole_day_exception_on_the_fall_back_night_lasts_25_hours():
    off = DayException(date(2026, 11, 1), date(2026, 11, 1), "unavailable", "Wedding")
    [window] = windows([], [off], first=date(2026, 11, 1), last=date(2026, 11, 1), zone=NY)
    assert (window.end - window.start).total_seconds() == 25 * 3600
    assert (window.kind, window.reason, window.source) == ("unavailable", "Wedding", "exception")


def test_exceptions_override_the_pattern_on_their_days_only():
    pattern = _pattern(WeeklyRule("monday", "00:00", "24:00", "unavailable"),
                       WeeklyRule("tuesday", "09:00", "12:00", "preferred"))
    free = DayException(date(2026, 3, 2), date(2026, 3, 2), "available")
    found = windows([pattern], [free], first=date(2026, 3, 2), last=date(2026, 3, 10), zone=NY)
    assert [(w.start.astimezone(NY).date(), w.kind) for w in found] == [
        (date(2026, 3, 3), "preferred"), (date(2026, 3, 9), "unavailable"),
        (date(2026, 3, 10), "preferred")]


def test_the_latest_pattern_version_in_force_applies_each_day():
    old = _pattern(WeeklyRule("monday", "07:00", "08:00", "unavailable"))
    new = _pattern(WeeklyRule("monday", "09:00", "10:00", "unavailable"), start=date(2026, 3, 5))
    found = windows([new, old], [], first=date(2026, 3, 2), last=date(2026, 3, 9), zone=NY)
    assert [w.start.astimezone(NY).hour for w in found] == [7, 9]
    assert windows([new], [], first=date(2026, 3, 2), last=date(2026, 3, 4), zone=NY) == []


def test_unavailable_overlaps_ignores_preferred_and_touching_windows():
    pattern = _pattern(WeeklyRule("monday", "07:00", "15:00", "unavailable"),
                       WeeklyRule("monday", "15:00", "18:00", "preferred"))
    found = windows([pattern], [], first=date(2026, 3, 2), last=date(2026, 3, 2), zone=NY)
    shift_after = (datetime(2026, 3, 2, 20, tzinfo=UTC), datetime(2026, 3, 2, 23, tzinfo=UTC))
    shift_in = (datetime(2026, 3, 2, 19, tzinfo=UTC), datetime(2026, 3, 2, 21, tzinfo=UTC))
    assert unavailable_overlaps(found, *shift_after) == []
    assert [w.reason for w in unavailable_overlaps(found, *shift_in)] == [
        "weekly pattern 07:00 to 15:00"]


def test_rule_errors_name_backwards_and_overlapping_ranges():
    rules = [WeeklyRule("monday", "09:00", "12:00", "available"),
             WeeklyRule("monday", "11:00", "13:00", "unavailable"),
             WeeklyRule("tuesday", "11:00", "13:00", "unavailable"),
             WeeklyRule("friday", "13:00", "13:00", "preferred"),
             WeeklyRule("friday", "24:00", "24:00", "preferred")]
    assert rule_errors(rules) == [
        (1, "startTime", "overlaps range 1 of monday"),
        (3, "endTime", "must be after the start time"),
        (4, "startTime", "must be a time of day from 00:00 to 23:59"),
    ]
