"""Open shifts that fill a gap in the staffing: marked "Needed" with how long, in words, and
listed most needed first on request (`?sort=needed`), with and without htmx.

A team of its own ("Needs Ward") on a day ten days ahead: the forecast asks for 2 nurses from
7:00 to 10:00 AM and 1 from 10:00 AM to 7:00 PM; a colleague works 7:00 AM to 7:00 PM. So an
open shift from 7:00 AM to 1:00 PM fills a 3-hour gap; one the day before (no forecast) none.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from app.api import models as m
from tests.factories import make_role, make_team, uid
from tests.web.provider.conftest import arrange, fresh_provider, now, shift_for

ZONE = ZoneInfo("America/New_York")
TEAM = "Needs Ward"


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), ZONE).astimezone(UTC)


def _ward(pweb) -> tuple[str, str, str]:
    """The ward, its forecast and colleague; returns the viewer's email and the ids of the
    needed open shift and of the one before it that no forecast covers."""
    def make(session: Session) -> None:
        if session.get(m.Team, uid(f"team:{TEAM}")) is None:
            make_role(session, make_team(session, TEAM), "Registered Nurse")

    arrange(pweb, make)
    day = now().astimezone(ZONE).date() + timedelta(days=10)
    viewer, colleague = fresh_provider(pweb, team=TEAM), fresh_provider(pweb, team=TEAM)
    shift_for(pweb, colleague, start=_at(day, 7), hours=12, team=TEAM, break_at=None)

    def forecast(session: Session) -> None:
        role = uid(f"role:{TEAM}:Registered Nurse")
        session.add_all([
            m.DemandForecastRow(role_id=role, start_date=_at(day, 7), end_date=_at(day, 10),
                                demand=2.0),
            m.DemandForecastRow(role_id=role, start_date=_at(day, 10), end_date=_at(day, 19),
                                demand=1.0)])

    arrange(pweb, forecast)
    needed = shift_for(pweb, None, start=_at(day, 7), hours=6, team=TEAM, break_at=None)
    before = shift_for(pweb, None, start=_at(day - timedelta(days=1), 7), hours=6, team=TEAM,
                       break_at=None)
    return viewer, str(needed), str(before)


def _card(page: str, shift_id: str) -> str:
    start = page.index(f'<li id="open-shift-{shift_id}"')
    return page[start:page.index("</li>", start)]


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def test_a_shift_that_fills_a_gap_says_how_long_it_is_needed(pweb):
    viewer, needed, before = _ward(pweb)
    pweb.sign_in(viewer)
    page = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "Needed: 3h of this shift is short-staffed." in _text(_card(page, needed))
    assert "Needed" not in _text(_card(page, before))
    assert f'action="/shifts/{needed}/claim"' in _card(page, needed)  # still claimable


def test_most_needed_first_and_by_start_time(pweb):
    viewer, needed, before = _ward(pweb)
    pweb.sign_in(viewer)
    by_start = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert by_start.index(f'id="open-shift-{before}"') < by_start.index(
        f'id="open-shift-{needed}"')
    assert '<a href="/shifts/open" hx-get="/shifts/open" hx-target="#open-shifts" ' \
           'hx-push-url="true" aria-current="true">By start time</a>' in by_start
    most = pweb.client.get("/shifts/open?sort=needed").get_data(as_text=True)
    assert most.index(f'id="open-shift-{needed}"') < most.index(f'id="open-shift-{before}"')
    assert 'aria-current="true">Most needed first</a>' in most
    # htmx swaps the list alone, in the order asked for.
    fragment = pweb.client.get("/shifts/open?sort=needed", headers={"HX-Request": "true"})
    body = fragment.get_data(as_text=True)
    assert body.lstrip().startswith('<div id="open-shifts">')
    assert body.index(f'id="open-shift-{needed}"') < body.index(f'id="open-shift-{before}"')
    assert "HX-Request" in fragment.vary
    # An order that is not offered is the default one.
    odd = pweb.client.get("/shifts/open?sort=%3Cscript%3E").get_data(as_text=True)
    assert 'aria-current="true">By start time</a>' in odd
