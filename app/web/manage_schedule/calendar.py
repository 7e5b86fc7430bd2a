"""Local-calendar helpers the manager pages share: the site's zone, local days as UTC instants,
weeks, and the teams a manager may pick from.

Every instant on the wire is UTC; managers think in the site's wall clock. These helpers turn a
local date (and time) typed into a form into the UTC instant it names — DST-correct through
`zoneinfo` — and back; a date a page cannot show becomes an inline message. Must not call the
API.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from flask import current_app, flash

from app.contract.teams import TeamRead
from app.contract.users import UserMe


def zone() -> ZoneInfo:
    """The site's time zone."""
    return current_app.extensions["shiftdesk_web"].settings.zone


def today() -> date:
    """Today on the site's calendar."""
    return datetime.now(UTC).astimezone(zone()).date()


def local_instant(day: date, at: time | None = None) -> datetime:
    """The UTC instant of `day` at `at` (midnight by default) on the site's wall clock."""
    return datetime.combine(day, at or time(0), tzinfo=zone()).astimezone(UTC)


def local_day(instant: datetime) -> date:
    """The site's calendar day of an instant."""
    return instant.astimezone(zone()).date()


def week_start(day: date) -> date:
    """The Monday of `day`'s week."""
    return day - timedelta(days=day.weekday())


EARLIEST_DAY = date(1900, 1, 8)
LATEST_DAY = date(2999, 12, 24)
"""The days a page may be asked to show: a week (or a pay period) around them stays inside the
dates the API keeps (1900 to 2999)."""


def parse_day(text: str | None) -> date | None:
    """A `YYYY-MM-DD` date, or None when missing. A malformed date, or one outside the dates
    Shiftdesk keeps, is None too, and the page says so (an inline message) as it falls back."""
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        flash(f"“{text[:40]}” is not a date; showing today's week instead.", "error")
        return None
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        flash(f"Shiftdesk keeps dates from {EARLIEST_DAY.year} to {LATEST_DAY.year}; showing "
              "today's week instead.", "error")
        return None
    return day


def my_teams(me: UserMe, teams: list[TeamRead]) -> list[TeamRead]:
    """The teams a manager works with: the ones they manage (every team for an admin)."""
    if me.is_admin:
        return teams
    mine = set(me.team_ids)
    return [team for team in teams if team.id in mine]


def default_team(me: UserMe, teams: list[TeamRead]) -> uuid.UUID | None:
    """The team a manager page opens on: the user's first team, else the first they may pick
    (an administrator belongs to no team and may pick any)."""
    if me.team_ids:
        return me.team_ids[0]
    mine = my_teams(me, teams)
    return mine[0].id if mine else None
