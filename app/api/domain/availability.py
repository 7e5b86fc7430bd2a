"""Availability rules: which instants a provider has said they are unavailable or prefer to work.

Pure: no Flask, no session, no clock. Patterns are wall-clock ranges per weekday; each is read on
each local date of the site's zone and only then turned into instants, so a pattern holds across
daylight-saving changes (a 7 AM start is 7 AM local on both sides of the change). Exceptions cover
whole local days and override the pattern on those days: `unavailable` blocks the whole day,
`available` clears the pattern's unavailable and preferred ranges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
END_OF_DAY = "24:00"
"""An end time meaning the next local midnight."""


@dataclass(frozen=True)
class WeeklyRule:
    """One range of one weekday: `start`/`end` are `HH:MM` local times, `end` may be 24:00."""

    weekday: str
    start: str
    end: str
    kind: str


@dataclass(frozen=True)
class Pattern:
    """A version of a weekly pattern, in force from `effective_from` until the next version."""

    effective_from: date
    rules: tuple[WeeklyRule, ...]


@dataclass(frozen=True)
class DayException:
    """Local days `start`..`end` (inclusive) on which the pattern does not apply."""

    start: date
    end: date
    kind: str
    note: str | None = None


@dataclass(frozen=True)
class Window:
    """An interval of instants (UTC) the provider is unavailable in or prefers."""

    start: datetime
    end: datetime
    kind: str
    reason: str
    source: str


def _minutes(value: str) -> int:
    hours, minutes = value.split(":")
    return int(hours) * 60 + int(minutes)


def rule_errors(rules: Sequence[WeeklyRule]) -> list[tuple[int, str, str]]:
    """Return `(index, member, message)` for each rule that ends before it starts or overlaps an
    earlier rule of the same weekday."""
    errors: list[tuple[int, str, str]] = []
    for index, rule in enumerate(rules):
        if rule.start == END_OF_DAY:
            errors.append((index, "startTime", "must be a time of day from 00:00 to 23:59"))
            continue
        if _minutes(rule.end) <= _minutes(rule.start):
            errors.append((index, "endTime", "must be after the start time"))
            continue
        for earlier_index, earlier in enumerate(rules[:index]):
            if earlier.weekday != rule.weekday or earlier.start == END_OF_DAY:
                continue
            if (_minutes(earlier.start) < _minutes(rule.end)
                    and _minutes(rule.start) < _minutes(earlier.end)):
                errors.append((index, "startTime",
                               f"overlaps range {earlier_index + 1} of {rule.weekday}"))
                break
    return errors


def local_instant(day: date, clock: str, zone: ZoneInfo) -> datetime:
    """The UTC instant of a wall-clock time on a local date (24:00 is the next local midnight).

    A time the clocks skip (spring forward) is read with the offset before the change, as
    `zoneinfo` does for `fold=0`.
    """
    if clock == END_OF_DAY:
        return datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    hours, minutes = (int(part) for part in clock.split(":"))
    return datetime.combine(day, time(hours, minutes), tzinfo=zone).astimezone(UTC)


def pattern_on(patterns: Iterable[Pattern], day: date) -> Pattern | None:
    """The pattern version in force on a local date: the latest that started on or before it."""
    current: Pattern | None = None
    for pattern in patterns:
        if pattern.effective_from <= day and (
                current is None or pattern.effective_from > current.effective_from):
            current = pattern
    return current


def _range_text(start: str, end: str) -> str:
    return f"{start} to {end}"


def windows(patterns: Sequence[Pattern], exceptions: Sequence[DayException], *,
            first: date, last: date, zone: ZoneInfo) -> list[Window]:
    """The unavailable and preferred windows on local dates `first`..`last` (inclusive).

    An exception covering a date overrides the pattern on it (an `unavailable` one wins over an
    `available` one). Windows come sorted by start.
    """
    found: list[Window] = []
    day = first
    while day <= last:
        covering = [e for e in exceptions if e.start <= day <= e.end]
        blocked = [e for e in covering if e.kind == "unavailable"]
        if blocked:
            note = next((e.note for e in blocked if e.note), None)
            found.append(Window(local_instant(day, "00:00", zone),
                                local_instant(day, END_OF_DAY, zone), "unavailable",
                                note or "Day off", "exception"))
        elif not covering:
            pattern = pattern_on(patterns, day)
            weekday = WEEKDAYS[day.weekday()]
            for rule in pattern.rules if pattern else ():
                if rule.weekday != weekday or rule.kind == "available":
                    continue
                found.append(Window(local_instant(day, rule.start, zone),
                                    local_instant(day, rule.end, zone), rule.kind,
                                    f"weekly pattern {_range_text(rule.start, rule.end)}",
                                    "pattern"))
        day += timedelta(days=1)
    return sorted(found, key=lambda w: (w.start, w.end))


def unavailable_overlaps(found: Iterable[Window], start: datetime, end: datetime) -> list[Window]:
    """The unavailable windows that overlap the interval `start`..`end` (instants)."""
    return [w for w in found if w.kind == "unavailable" and w.start < end and start < w.end]
