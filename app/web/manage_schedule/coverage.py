"""The coverage strip of the team schedule: per role, the week's hours against demand.

`strips` turns the API's coverage (`GET /v1/forecasting/coverage`, hourly) into what the page
shows: per role a row per day of 24 local hours, each hour one cell saying in text (never by
colour alone) whether the hour is short of staff and by how many, over, or met. The day the
clocks go forward has no 2 AM (its cell says so); the day they go back has two 1 AMs, shown
side by side in one cell. `short_runs` gives a day's short stretches in words, for the day view
on a phone.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from zoneinfo import ZoneInfo

from app.contract.forecasting import CoverageInterval, CoverageRead
from app.web.filters import format_headcount as heads
from app.web.filters import format_time


@dataclass(frozen=True)
class Hour:
    """One interval of one role, as a cell."""

    start: datetime
    end: datetime
    demand: float
    scheduled: float
    open: float
    gap: float

    @property
    def state(self) -> str:
        """`short`, `over`, `met`, or `quiet` (nobody needed and nobody there)."""
        if self.gap > 0:
            return "short"
        if self.gap < 0:
            return "over"
        return "met" if self.demand else "quiet"

    @property
    def mark(self) -> str:
        """The cell's visible text: minus 1 when short by one, +2 when two over, a tick when met,
        nothing when quiet."""
        return {"short": f"\u2212{heads(self.gap)}", "over": f"+{heads(-self.gap)}",
                "met": "\u2713", "quiet": ""}[self.state]

    def words(self, zone: ZoneInfo, clock: str | None = None) -> str:
        """The cell for a screen reader: "7:00 AM: 2 needed, 1 scheduled, 1 short" (`clock`:
        the start's time of day, when the caller has it already)."""
        head = f"{clock or format_time(self.start, zone)}: {heads(self.demand)} needed, " \
               f"{heads(self.scheduled)} scheduled"
        tail = {"short": f", {heads(self.gap)} short", "over": f", {heads(-self.gap)} over",
                "met": ", covered", "quiet": ""}[self.state]
        offered = f", {heads(self.open)} in open shifts" if self.open else ""
        return head + tail + offered


@dataclass(frozen=True)
class Cell:
    """An hour as the strip shows it: its state, its mark and its words."""

    state: str
    mark: str
    words: str


@dataclass
class Day:
    """One local day of one role: its cells by local hour (two in the hour the clocks go back,
    none in the hour they go forward)."""

    day: date
    hours: dict[int, list[Hour]] = field(default_factory=dict)
    zone: ZoneInfo | None = None
    clocks: dict[datetime, str] = field(default_factory=dict)
    """Times of day already put in words, shared by the strip's days (a week's 168 hours
    recur in every role)."""

    def at(self, hour: int) -> list[Cell]:
        """The cells starting in local hour `hour`."""
        assert self.zone is not None
        found = []
        for h in self.hours.get(hour, []):
            clock = self.clocks.get(h.start)
            if clock is None:
                clock = self.clocks[h.start] = format_time(h.start, self.zone)
            found.append(Cell(h.state, h.mark, h.words(self.zone, clock)))
        return found

    @property
    def cells(self) -> list[list[Cell]]:
        """The day's cells hour by hour, midnight first (what a row of the strip shows)."""
        return [self.at(hour) for hour in range(24)]


@dataclass
class RoleStrip:
    """One role's week."""

    role_id: str
    name: str
    has_forecast: bool
    short_hours: float
    days: list[Day]

    @property
    def short_label(self) -> str:
        """"7.5 staff-hours"."""
        return f"{heads(round(self.short_hours, 2))} staff-hours"

    def day(self, day: date) -> Day | None:
        """The strip's day `day`."""
        return next((d for d in self.days if d.day == day), None)


@dataclass(frozen=True)
class Run:
    """Consecutive hours of one day short by the same number."""

    start: datetime
    end: datetime
    short: float
    demand: float
    scheduled: float

    @property
    def figures(self) -> str:
        """"2 needed, 1 scheduled"."""
        return f"{heads(self.demand)} needed, {heads(self.scheduled)} scheduled"

    @property
    def missing(self) -> str:
        """"1 short"."""
        return f"{heads(self.short)} short"


def _hour(cell: CoverageInterval) -> Hour:
    return Hour(cell.start_date, cell.end_date, cell.demand, cell.scheduled, cell.open, cell.gap)


def strips(coverage: CoverageRead | None, days: list[date], zone: ZoneInfo) -> list[RoleStrip]:
    """Per role of the coverage, its days (those of `days`) of hourly cells; none without
    coverage (no forecast anywhere: nothing to compare with)."""
    if coverage is None or not any(r.has_forecast for r in coverage.roles):
        return []
    found = []
    clocks: dict[datetime, str] = {}
    for role in coverage.roles:
        by_day = {d: Day(d, zone=zone, clocks=clocks) for d in days}
        for cell in role.intervals:
            local = cell.start_date.astimezone(zone)
            holder = by_day.get(local.date())
            if holder is not None:
                holder.hours.setdefault(local.hour, []).append(_hour(cell))
        found.append(RoleStrip(str(role.role_id), role.role_name, role.has_forecast,
                               role.short_hours, list(by_day.values())))
    return found


def short_runs(day: Day) -> list[Run]:
    """The day's short stretches, neighbouring hours short by the same number joined."""
    runs: list[Run] = []
    for hour in sorted((h for cells in day.hours.values() for h in cells),
                       key=lambda h: h.start):
        if hour.state != "short":
            continue
        last = runs[-1] if runs else None
        if last is not None and last.end == hour.start and last.short == hour.gap \
                and last.demand == hour.demand:
            runs[-1] = Run(last.start, hour.end, last.short, last.demand, last.scheduled)
        else:
            runs.append(Run(hour.start, hour.end, hour.gap, hour.demand, hour.scheduled))
    return runs
