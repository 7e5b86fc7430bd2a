"""Staffing coverage: per role and interval, the headcount in demand against the headcount
scheduled and the open shifts offered. Pure: no Flask, no SQL.

A figure is a *headcount-time average* over its interval: a nurse on the floor for 30 minutes of
a 60-minute interval counts 0.5; two forecast rows of 3 staff each covering the interval add up
to 6. Everything is exact (`Fraction`), and intervals are laid in elapsed time from each local
midnight of the zone, so the day of a spring-forward has 23 hourly intervals and the day of a
fall-back 25 — no hour missing, none counted twice.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from fractions import Fraction
from itertools import pairwise
from math import lcm

from app.api.domain import intervals as iv
from app.api.domain.intervals import Interval
from app.contract.common import Id

MINUTES_A_DAY = 24 * 60
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SECOND = timedelta(seconds=1)
ONE = Fraction(1)
"""One person: the count of every working segment (checked by identity in `spread`)."""


@dataclass(frozen=True, slots=True)
class Load:
    """A role's headcount `count` over `[start, end)`: a forecast row, or one person's working
    segment (count 1)."""

    role_id: Id
    start: datetime
    end: datetime
    count: Fraction = ONE


@dataclass(frozen=True, slots=True)
class Cell:
    """One interval of one role. Its sums are headcount-seconds in units of 1/`scale` of a
    person (integers: a forecast of 2.5 staff is 5 units at scale 2), so adding them up is
    exact and cheap; the averages over the interval are exact fractions."""

    start: datetime
    end: datetime
    seconds: int
    scale: int
    demand_sum: int
    scheduled_sum: int
    open_sum: int

    @property
    def gap_sum(self) -> int:
        """Demand less scheduled, in the sums' units."""
        return self.demand_sum - self.scheduled_sum

    def average(self, total: int) -> Fraction:
        """A sum of this cell as a headcount averaged over the interval."""
        return Fraction(total, self.scale * self.seconds)

    @property
    def demand(self) -> Fraction:
        return self.average(self.demand_sum)

    @property
    def scheduled(self) -> Fraction:
        return self.average(self.scheduled_sum)

    @property
    def open(self) -> Fraction:
        return self.average(self.open_sum)

    @property
    def gap(self) -> Fraction:
        """Demand less scheduled: above zero the interval is short of staff, below it over."""
        return self.average(self.gap_sum)

    @property
    def short_hours(self) -> Fraction:
        """Staff-hours missing in the interval (none when covered)."""
        return Fraction(max(self.gap_sum, 0), self.scale * 3600)


def _seconds(start: datetime, end: datetime) -> int:
    return int((end - start).total_seconds())


def _midnight(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def grid(window: Interval[datetime], minutes: int, zone: tzinfo) -> list[datetime]:
    """The bounds of the window's intervals: every local midnight, and from each every
    `minutes` of elapsed time until the next, clipped to the window (its first and last
    interval may be shorter when the window does not start or end on the grid)."""
    step = timedelta(minutes=minutes)
    day = window.start.astimezone(zone).date()
    bounds = [window.start]
    while True:
        start, end = _midnight(day, zone), _midnight(day + timedelta(days=1), zone)
        at = start
        while at < end:
            if window.start < at < window.end:
                bounds.append(at)
            at += step
        if end >= window.end:
            break
        if end > window.start:
            bounds.append(end)
        day += timedelta(days=1)
    bounds.append(window.end)
    return sorted(set(bounds))


def scale_of(loads: Iterable[Load]) -> int:
    """The least number of units per person in which every load's count is whole."""
    return lcm(1, *{load.count.denominator for load in loads})


def _epoch_seconds(at: datetime) -> int:
    """Whole seconds since the epoch (exact integer arithmetic, sub-seconds dropped)."""
    return (at - EPOCH) // SECOND


def spread(bounds: Sequence[datetime], loads: Iterable[Load], scale: int = 1,
           ) -> dict[Id, list[int]]:
    """Per role, the headcount-seconds of `loads` falling in each interval of `bounds`, in
    units of 1/`scale` of a person (each load's count times `scale` must be whole).

    Integers throughout, and one sweep per role: every instant becomes whole seconds since the
    epoch once, each load a step up by `count * scale` units at its start and down at its end,
    and the steps, summed per instant and sorted, are integrated across the intervals in one
    pass — the cost grows with the loads plus the intervals, not with their product.
    """
    size = len(bounds) - 1
    edges = [_epoch_seconds(b) for b in bounds]
    first, last = edges[0], edges[-1]
    # Per role, the net change of headcount units at each instant: loads share their starts
    # and ends (a shift change), so the sweep below visits a few hundred instants, not every
    # load's two.
    steps: dict[Id, dict[int, int]] = defaultdict(dict)
    seconds: dict[datetime, int] = {}
    for load in loads:
        count = load.count
        if count is ONE:  # a person: most loads, spared the fraction's arithmetic
            units = scale
        else:
            units, rest = divmod(count.numerator * scale, count.denominator)
            assert not rest, "the scale must make every count whole"
            if not units:
                continue
        start, end = seconds.get(load.start), seconds.get(load.end)
        if start is None:
            start = seconds[load.start] = _epoch_seconds(load.start)
        if end is None:
            end = seconds[load.end] = _epoch_seconds(load.end)
        start, end = max(start, first), min(end, last)
        if end <= start:
            continue
        role_steps = steps[load.role_id]
        role_steps[start] = role_steps.get(start, 0) + units
        role_steps[end] = role_steps.get(end, 0) - units
    found: dict[Id, list[int]] = {}
    for role, role_steps in steps.items():
        cells = [0] * size
        level, at, cell = 0, first, 0
        for when in sorted(role_steps):
            while cell + 1 < size and edges[cell + 1] <= when:
                cells[cell] += level * (edges[cell + 1] - at)
                at = edges[cell + 1]
                cell += 1
            cells[cell] += level * (when - at)
            at, level = when, level + role_steps[when]
        found[role] = cells
    return found


def coverage(bounds: Sequence[datetime], roles: Iterable[Id], *, demand: Sequence[Load],
             scheduled: Iterable[Load], offered: Iterable[Load]) -> dict[Id, list[Cell]]:
    """Per role of `roles`, its cells over the intervals of `bounds`: demand, scheduled and
    open (`offered`) headcount-seconds, to average over each interval."""
    scale = scale_of(demand)
    wanted, staffed, opened = (spread(bounds, demand, scale), spread(bounds, scheduled, scale),
                               spread(bounds, offered, scale))
    zero = [0] * (len(bounds) - 1)
    lengths = [_seconds(a, b) for a, b in pairwise(bounds)]
    found: dict[Id, list[Cell]] = {}
    for role in roles:
        d, s, o = wanted.get(role, zero), staffed.get(role, zero), opened.get(role, zero)
        found[role] = [Cell(bounds[n], bounds[n + 1], length, scale, d[n], s[n], o[n])
                       for n, length in enumerate(lengths)]
    return found


def working(role_id: Id, spans: Iterable[Interval[datetime]],
            away: Sequence[Interval[datetime]]) -> list[Load]:
    """One person's loads of `role_id`: their working `spans` less the time they are `away`
    (approved time off)."""
    parts = iv.subtract(spans, away) if away else iv.merge(spans)
    return [Load(role_id, part.start, part.end) for part in parts]


def short_seconds(spans: Sequence[tuple[Id, Interval[datetime]]], *, demand: Sequence[Load],
                  scheduled: Iterable[Load]) -> list[int]:
    """Per `(role, span)` of `spans`, the seconds of the span during which that role is
    scheduled below demand. Exact: the intervals are cut at every bound of a span or a load,
    so demand and staff are constant within each."""
    if not spans:
        return []
    staff = list(scheduled)
    first = min(span.start for _role, span in spans)
    last = max(span.end for _role, span in spans)
    points = {first, last}
    for _role, span in spans:
        points.update((span.start, span.end))
    for load in (*demand, *staff):
        points.update(at for at in (load.start, load.end) if first < at < last)
    bounds = sorted(points)
    cells = coverage(bounds, {role for role, _span in spans}, demand=demand, scheduled=staff,
                     offered=[])
    found = []
    for role, span in spans:
        held = cells[role]
        begin, stop = bisect_left(bounds, span.start), bisect_left(bounds, span.end)
        found.append(sum(held[n].seconds for n in range(begin, stop) if held[n].gap_sum > 0))
    return found

