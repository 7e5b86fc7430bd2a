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
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo

from markupsafe import Markup, escape

from app.contract.forecasting import CoverageInterval, CoverageRead
from app.web.filters import format_headcount as heads
from app.web.filters import format_time


@dataclass(frozen=True)
class Figures:
    """What a cell says about its numbers, whatever the hour: its state, its visible mark and
    the words a screen reader hears after the time of day."""

    state: str
    mark: str
    text: str


@lru_cache(maxsize=4096)
def figures(demand: float, scheduled: float, open: float, gap: float) -> Figures:
    """The cell's `Figures`: `short`, `over`, `met`, or `quiet` (nobody needed and nobody
    there); the mark minus 1 when short by one, +2 when two over, a tick when met, nothing when
    quiet; the words "2 needed, 1 scheduled, 1 short". Cached: a week's cells repeat a handful
    of figures."""
    if gap > 0:
        state, mark, tail = "short", f"\u2212{heads(gap)}", f", {heads(gap)} short"
    elif gap < 0:
        state, mark, tail = "over", f"+{heads(-gap)}", f", {heads(-gap)} over"
    elif demand:
        state, mark, tail = "met", "\u2713", ", covered"
    else:
        state, mark, tail = "quiet", "", ""
    offered = f", {heads(open)} in open shifts" if open else ""
    return Figures(state, mark,
                   f"{heads(demand)} needed, {heads(scheduled)} scheduled{tail}{offered}")


@lru_cache(maxsize=8192)
def _cell_html(clock: str, demand: float, scheduled: float, open: float, gap: float,
               alone: bool) -> str:
    """The interval's mark, hidden from screen readers, then its words with the time of day,
    shown only to them. A quiet interval alone in its hour has no mark to show, so no chip
    either (a week is hundreds of cells, most of them quiet); beside another it keeps an empty
    one, so the hour's chips stay in their places."""
    said = figures(demand, scheduled, open, gap)
    words = f'<span class="visually-hidden">{escape(clock)}: {escape(said.text)}</span>'
    if alone and not said.mark:
        return words
    return (f'<span class="cov-cell cov-{said.state}" aria-hidden="true">{escape(said.mark)}'
            f'</span>{words}')


_SKIPPED = ('<span class="cov-cell cov-none" aria-hidden="true"></span><span '
            'class="visually-hidden">No such hour: the clocks go forward</span>')


class Hour(NamedTuple):
    """One interval of one role, as a cell (a tuple: a week is hundreds of them)."""

    start: datetime
    end: datetime
    demand: float
    scheduled: float
    open: float
    gap: float

    @property
    def said(self) -> Figures:
        """What the cell says of its numbers."""
        return figures(self.demand, self.scheduled, self.open, self.gap)

    @property
    def state(self) -> str:
        """`short`, `over`, `met`, or `quiet` (nobody needed and nobody there)."""
        return self.said.state

    @property
    def mark(self) -> str:
        """The cell's visible text: minus 1 when short by one, +2 when two over, a tick when met,
        nothing when quiet."""
        return self.said.mark

    def words(self, zone: ZoneInfo, clock: str | None = None) -> str:
        """The cell for a screen reader: "7:00 AM: 2 needed, 1 scheduled, 1 short" (`clock`:
        the start's time of day, when the caller has it already)."""
        return f"{clock or format_time(self.start, zone)}: {self.said.text}"


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

    def row(self) -> Markup:
        """The day's 24 `<td>` of the strip, midnight first: each cell its mark (hidden from
        screen readers) and its words with the time of day (shown only to them); the hour the
        clocks skip says so.

        Built here rather than in the template: a week is 168 cells per role, and a template
        loop over them cost more than the rest of the schedule page's markup.
        """
        assert self.zone is not None
        html = []
        clocks = self.clocks
        for hour in range(24):
            held = self.hours.get(hour)
            html.append('<td class="cov-slot">')
            alone = held is not None and len(held) == 1
            for h in held or ():
                clock = clocks.get(h.start)
                if clock is None:
                    clock = clocks[h.start] = format_time(h.start, self.zone)
                html.append(_cell_html(clock, h.demand, h.scheduled, h.open, h.gap, alone))
            html.append(f"{'' if held else _SKIPPED}</td>")
        return Markup("".join(html))


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
