"""The coverage chart of a team's week (`GET /manage/schedule/coverage?team=&week=&interval=`).

Per role with a forecast: an inline SVG drawn here on the server (no chart library, no
script) with demand as a step line, the staff scheduled as solid bars and the open shifts as
striped bars stacked on them, and beside it a table of the same numbers, interval by interval,
exactly as `GET /v1/forecasting/coverage` gives them (figures through `format_headcount`).
Roles without a forecast are named in one line. The x axis is elapsed time from the week's
first local midnight, so the day the clocks go forward is an hour narrower and has 23 hourly
rows, the day they go back an hour wider with 25.

Reached from the team schedule's coverage strip ("See the chart"); whoever may not read the
coverage gets the API's 403 as the polite error page. Must not import `app.api`; it reaches the
API only through `app.client`.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from flask import Response, request, url_for

from app.client import ApiClient, NotFound
from app.contract.forecasting import CoverageInterval, CoverageQuery, CoverageRead, CoverageRole
from app.contract.teams import TeamListQuery, TeamRead
from app.web.auth import api, current_user
from app.web.filters import format_date, format_time
from app.web.filters import format_headcount as heads
from app.web.htmx import render
from app.web.manage_schedule.calendar import default_team, local_instant, my_teams, zone
from app.web.manage_schedule.views import _team_and_week, bp

TEMPLATE = "manage_schedule/coverage.html"
INTERVALS = (30, 60, 120, 240)
"""The interval lengths offered, in minutes (60 by default)."""

# The drawing's own units (the SVG scales to its box; the stroke of the demand line does not).
WIDTH, HEIGHT = 600.0, 240.0
LEFT, RIGHT, TOP, BOTTOM = 30.0, 594.0, 10.0, 204.0


def _n(value: float) -> str:
    """A coordinate to two decimals, without trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Row:
    """One interval as the table and the drawing show it."""

    start: datetime
    end: datetime
    demand: float
    scheduled: float
    open: float
    gap: float

    @property
    def figures(self) -> tuple[str, str, str]:
        """Demand, scheduled and open, as people say them."""
        return heads(self.demand), heads(self.scheduled), heads(self.open)

    @property
    def state(self) -> str:
        """`short`, `over` or `met` (a zero gap)."""
        return "short" if self.gap > 0 else "over" if self.gap < 0 else "met"

    @property
    def gap_words(self) -> str:
        """"2 short", "1.5 over" or "0"."""
        if self.gap > 0:
            return f"{heads(self.gap)} short"
        if self.gap < 0:
            return f"{heads(-self.gap)} over"
        return "0"


@dataclass(frozen=True)
class Bar:
    """One interval drawn: where it lies, its scheduled bar and the open bar stacked on it."""

    x: str
    width: str
    scheduled_y: str
    scheduled_h: str
    open_y: str
    open_h: str
    short: bool


@dataclass(frozen=True)
class Tick:
    """A day's boundary and label, or a gridline with its headcount."""

    at: str
    label: str
    middle: str = ""


@dataclass
class Drawing:
    """The geometry of one role's chart, in the drawing's units."""

    bars: list[Bar]
    demand: str  # the step line's path
    grid: list[Tick]
    days: list[Tick]
    width: str = _n(WIDTH)
    height: str = _n(HEIGHT)
    left: str = _n(LEFT)
    right: str = _n(RIGHT)
    top: str = _n(TOP)
    bottom: str = _n(BOTTOM)


def _step(peak: float) -> int:
    """Headcount between gridlines: at most five lines above zero."""
    return max(1, math.ceil(peak / 5))


def draw(rows: list[Row], start: datetime, end: datetime, days: list[date]) -> Drawing:
    """Lay `rows` (the intervals of `start` to `end`) out: x in elapsed time, y in headcount,
    gridlines at whole heads and each local day of `days` marked and labelled."""
    total = (end - start).total_seconds()
    peak = max([1.0, *(max(r.demand, r.scheduled + r.open) for r in rows)])
    step = _step(peak)
    top = step * math.ceil(peak / step)

    def x(at: datetime) -> float:
        return LEFT + (RIGHT - LEFT) * (at - start).total_seconds() / total

    def y(heads_: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * heads_ / top

    bars = []
    line: list[str] = []
    for row in rows:
        x0, x1 = x(row.start), x(row.end)
        ys, yo = y(row.scheduled), y(row.scheduled + row.open)
        bars.append(Bar(_n(x0), _n(max(x1 - x0, 0)), _n(ys), _n(BOTTOM - ys), _n(yo),
                        _n(ys - yo), row.gap > 0))
        level = _n(y(row.demand))
        line.append(f"M{_n(x0)} {level}" if not line else f"V{level}")
        line.append(f"H{_n(x1)}")
    grid = [Tick(_n(y(h)), str(h)) for h in range(0, top + 1, step)]
    marks = []
    for day in days:
        begin = max(local_instant(day), start)
        finish = min(local_instant(day + timedelta(days=1)), end)
        if finish <= begin:
            continue
        marks.append(Tick(_n(x(begin)), f"{day:%a} {day.day}",
                          _n((x(begin) + x(finish)) / 2)))
    return Drawing(bars=bars, demand=" ".join(line), grid=grid, days=marks)


@dataclass
class RoleChart:
    """One role's week: its drawing, its table by local day and a summary in words."""

    role_id: str
    name: str
    short_hours: float
    rows: list[Row]
    drawing: Drawing
    by_day: list[tuple[date, list[Row]]]
    summary: str

    @property
    def short_label(self) -> str:
        """"7.5 staff-hours"."""
        return f"{heads(round(self.short_hours, 2))} staff-hours"


def _row(cell: CoverageInterval) -> Row:
    return Row(cell.start_date, cell.end_date, cell.demand, cell.scheduled, cell.open, cell.gap)


def summary(name: str, rows: list[Row], short_hours: float, site: ZoneInfo) -> str:
    """What the chart shows, for a screen reader: the peaks, and where and how much short."""
    peak = max((r.demand for r in rows), default=0.0)
    staffed = max((r.scheduled for r in rows), default=0.0)
    text = f"{name}: demand up to {heads(peak)}, scheduled up to {heads(staffed)}."
    short = [r for r in rows if r.gap > 0]
    if not short:
        return text + " Covered in every interval."
    worst = max(short, key=lambda r: r.gap)
    when = f"{format_date(worst.start, site, relative=False)}, {format_time(worst.start, site)}"
    count = len(short)
    return (f"{text} Short in {count} interval{'s' if count != 1 else ''}, "
            f"{heads(round(short_hours, 2))} staff-hours in all; most short by "
            f"{heads(worst.gap)} at {when}.")


def role_chart(role: CoverageRole, coverage: CoverageRead, days: list[date],
               site: ZoneInfo) -> RoleChart:
    """One role of the coverage, drawn and tabled."""
    rows = [_row(c) for c in role.intervals]
    by_day: dict[date, list[Row]] = {d: [] for d in days}
    for row in rows:
        by_day.setdefault(row.start.astimezone(site).date(), []).append(row)
    return RoleChart(str(role.role_id), role.role_name, role.short_hours, rows,
                     draw(rows, coverage.start_date, coverage.end_date, days),
                     [(d, found) for d, found in by_day.items() if found],
                     summary(role.role_name, rows, role.short_hours, site))


@dataclass
class Chart:
    """Everything the chart page shows."""

    team: TeamRead | None
    teams: list[TeamRead]
    start: date
    interval: int
    coverage: CoverageRead | None = None
    roles: list[RoleChart] = field(default_factory=list)

    @property
    def days(self) -> list[date]:
        """The seven days of the week."""
        return [self.start + timedelta(days=i) for i in range(7)]

    @property
    def unforecast(self) -> list[str]:
        """The names of the team's roles without a forecast this week."""
        if self.coverage is None:
            return []
        return [r.role_name for r in self.coverage.roles if not r.has_forecast]

    def url(self, **changes: Any) -> str:
        """This chart's address with `changes` (team, week, interval)."""
        args: dict[str, Any] = {"team": str(self.team.id) if self.team else None,
                                "week": self.start.isoformat(),
                                "interval": self.interval if self.interval != 60 else None}
        args.update(changes)
        return url_for("manage_schedule.coverage") + "?" + urlencode(
            {k: v for k, v in args.items() if v})

    def week_url(self, offset: int) -> str:
        """The same chart `offset` weeks away."""
        return self.url(week=(self.start + timedelta(weeks=offset)).isoformat())

    def this_week_url(self) -> str:
        """The same chart for this week."""
        return self.url(week=None)

    def schedule_url(self) -> str:
        """The team schedule's week this chart shows."""
        args = {"team": str(self.team.id) if self.team else "", "week": self.start.isoformat(),
                "view": "week"}
        return url_for("manage_schedule.index") + "?" + urlencode(
            {k: v for k, v in args.items() if v})


def interval_of(text: str | None) -> int:
    """The interval asked for, if offered; 60 otherwise."""
    return int(text) if text in {str(n) for n in INTERVALS} else 60


def _reads(client: ApiClient, team: uuid.UUID | None, start: date, interval: int) -> list[Any]:
    # The window is found here: the concurrent calls run outside the request's context.
    begin, end = local_instant(start), local_instant(start + timedelta(days=7))

    def coverage() -> CoverageRead | None:
        if team is None:
            return None
        try:
            return client.get_coverage(CoverageQuery(team_id=team, start_date=begin,
                                                     end_date=end, interval=interval))
        except NotFound:  # a team that is not there: the caller falls back on the default
            return None

    return client.concurrently(lambda: client.list_teams(TeamListQuery(page_size=200)),
                               coverage)


@bp.get("/manage/schedule/coverage")
def coverage() -> Response:
    """The week's coverage of one of the manager's teams: per role a chart and a table."""
    me = current_user()
    client = api()
    team_id, start, _day = _team_and_week(me, request.args)
    interval = interval_of(request.args.get("interval"))
    teams, read = _reads(client, team_id, start, interval)
    if team_id is None or all(t.id != team_id for t in teams.items):
        # No team, or one that is not there (a stale link): the default team's week instead.
        team_id = default_team(me, teams.items)
        teams, read = _reads(client, team_id, start, interval)
    chart = Chart(team=next((t for t in teams.items if t.id == team_id), None),
                  teams=my_teams(me, teams.items), start=start, interval=interval,
                  coverage=read)
    if read is not None:
        chart.roles = [role_chart(r, read, chart.days, zone()) for r in read.roles
                       if r.has_forecast]
    return render(TEMPLATE, fragment="coverage_chart", chart=chart, intervals=INTERVALS)
