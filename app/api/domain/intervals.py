"""Interval arithmetic on half-open intervals `[start, end)`: merge, subtract, intersect, clip.

Shared by the timesheet computation and slot search. Works for any totally ordered values
(datetimes in the application, integers in tests) because it only compares bounds; durations
(`total_seconds`, `whole_minutes`) are for datetimes. Every function returns a new sorted list of
non-empty intervals and never mutates its input. Pure code: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, Generic, Protocol, TypeVar


class Comparable(Protocol):
    """What an interval bound must support: a total order."""

    def __lt__(self, other: Any, /) -> bool: ...

    def __le__(self, other: Any, /) -> bool: ...


T = TypeVar("T", bound=Comparable)


@dataclass(frozen=True, order=True)
class Interval(Generic[T]):
    """A non-empty half-open interval `[start, end)`."""

    start: T
    end: T

    def __post_init__(self) -> None:
        if not self.start < self.end:
            raise ValueError(f"an interval must end after it starts: {self.start!r}..{self.end!r}")

    def contains(self, point: T) -> bool:
        """Whether `point` lies inside (the start does, the end does not)."""
        return self.start <= point < self.end

    def overlaps(self, other: Interval[T]) -> bool:
        """Whether the two share any point (touching intervals do not)."""
        return self.start < other.end and other.start < self.end

    def covers(self, other: Interval[T]) -> bool:
        """Whether `other` lies entirely inside this interval."""
        return self.start <= other.start and other.end <= self.end


def make(start: T, end: T) -> Interval[T] | None:
    """The interval `[start, end)`, or None when it would be empty."""
    return Interval(start, end) if start < end else None


def merge(intervals: Iterable[Interval[T]]) -> list[Interval[T]]:
    """Union: sorted, disjoint intervals; overlapping and touching ones are joined."""
    result: list[Interval[T]] = []
    for item in sorted(intervals):
        if result and item.start <= result[-1].end:
            last = result[-1]
            if last.end < item.end:
                result[-1] = Interval(last.start, item.end)
        else:
            result.append(item)
    return result


def overlap(a: Interval[T], b: Interval[T]) -> Interval[T] | None:
    """The common part of two intervals, or None."""
    start = a.start if b.start < a.start else b.start
    end = a.end if a.end < b.end else b.end
    return make(start, end)


def intersect(a: Iterable[Interval[T]], b: Iterable[Interval[T]]) -> list[Interval[T]]:
    """The points in both sets, as sorted disjoint intervals."""
    left, right = merge(a), merge(b)
    result: list[Interval[T]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        common = overlap(left[i], right[j])
        if common is not None:
            result.append(common)
        if left[i].end < right[j].end:
            i += 1
        else:
            j += 1
    return result


def subtract(base: Iterable[Interval[T]], cut: Iterable[Interval[T]]) -> list[Interval[T]]:
    """The points of `base` that are not in `cut`, as sorted disjoint intervals."""
    holes = merge(cut)
    result: list[Interval[T]] = []
    for piece in merge(base):
        cursor = piece.start
        for hole in holes:
            if hole.end <= cursor:
                continue
            if piece.end <= hole.start:
                break
            gap = make(cursor, hole.start)
            if gap is not None:
                result.append(gap)
            cursor = hole.end if cursor < hole.end else cursor
            if piece.end <= cursor:
                break
        rest = make(cursor, piece.end)
        if rest is not None:
            result.append(rest)
    return result


def clip(intervals: Iterable[Interval[T]], window: Interval[T]) -> list[Interval[T]]:
    """The parts of `intervals` inside `window`, sorted and merged."""
    return intersect(intervals, [window])


def split(interval: Interval[T], points: Iterable[T]) -> list[Interval[T]]:
    """Cut `interval` at every point strictly inside it; the pieces cover it exactly."""
    inside = sorted({p for p in points if interval.start < p < interval.end})
    bounds = [interval.start, *inside, interval.end]
    return [Interval(a, b) for a, b in pairwise(bounds)]


def total_seconds(intervals: Iterable[Interval[datetime]]) -> int:
    """The summed length of datetime intervals in whole seconds (overlaps counted once)."""
    return sum((i.end - i.start) // timedelta(seconds=1) for i in merge(intervals))


def whole_minutes(seconds: int) -> int:
    """Whole minutes in a number of seconds (partial minutes are not counted)."""
    return seconds // 60
