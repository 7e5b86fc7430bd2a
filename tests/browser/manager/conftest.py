"""Helpers of the manager journeys: arrange requests, shifts and punches in the site's database
(each test its own, on its own dates), and accept the 4xx answers a journey provokes on purpose.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from app.api import models as m
from tests.factories import make_shift, uid


@pytest.fixture
def arrange(site: Any) -> Callable[[Callable[[Any], Any]], Any]:
    """Run `change(session)` in a write transaction on the site's database."""

    def run(change: Callable[[Any], Any]) -> Any:
        with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
            result = change(session)
            session.flush()
            return result

    return run


def add_request(session: Any, *, start: datetime, days: int = 1,
                provider: str = "provider@example.com", note: str | None = None) -> uuid.UUID:
    """A pending full-day PTO request starting at `start` (a local midnight, in UTC)."""
    request = m.TimeOffRequest(
        status="pending", start_date=start, end_date=start + timedelta(days=days),
        policy_id=uid("policy:pto"), provider_id=uid(f"user:{provider}"), note=note,
        paid_hours=8.0 * days, is_full_day=True)
    request.daily_hours = [m.TimeOffDay(date=start + timedelta(days=i), duration=8.0)
                           for i in range(days)]
    session.add(request)
    session.flush()
    return request.id


def add_shift(session: Any, *, start: datetime, provider: str | None = "provider@example.com",
              team: str = "Emergency", role: str = "Registered Nurse", hours: int = 12,
              break_at: int | None = 6) -> uuid.UUID:
    """A shift in `team` (open when `provider` is None) starting at `start`."""
    person = session.get(m.Provider, uid(f"user:{provider}")) if provider else None
    shift = make_shift(session, provider=person, team=session.get(m.Team, uid(f"team:{team}")),
                       role=session.get(m.Role, uid(f"role:{team}:{role}")), start=start,
                       hours=hours, break_at=break_at)
    session.flush()
    return shift.id


def shift_row(site: Any, shift_id: uuid.UUID) -> m.Shift | None:
    """The shift as the database holds it now (None when deleted)."""
    with site.api.extensions["shiftdesk"].db.unit_of_work() as session:
        shift = session.get(m.Shift, shift_id)
        if shift is not None:
            session.expunge(shift)
        return shift


def open_copies(site: Any, start: datetime) -> int:
    """How many open shifts start at `start`."""
    from sqlalchemy import func, select
    with site.api.extensions["shiftdesk"].db.unit_of_work() as session:
        return int(session.scalar(select(func.count()).select_from(m.Shift).where(
            m.Shift.start_date == start, m.Shift.provider_id.is_(None))) or 0)


def client_as(site: Any, email: str) -> Any:
    """The API as `email` sees it (what the provider's own pages show)."""
    from app.api.tokens import mint_access_token
    from app.client import ApiClient, build_http

    settings = site.api.config["SHIFTDESK"]
    token = mint_access_token(site.api.extensions["shiftdesk"].signing_key,
                              subject=str(uid(f"user:{email}")), issuer=settings.issuer,
                              audience=settings.audience, ttl=600)
    return ApiClient(build_http(wsgi_app=site.api), token)


def add_punches(session: Any, *, start: datetime, late_minutes: int = 25) -> list[uuid.UUID]:
    """A day of Pat's punches on a shift at `start`: a late clock-in, then a clean clock-out."""
    card = m.Timecard(provider_id=uid("user:provider@example.com"),
                      period_start=start - timedelta(days=1),
                      period_end=start + timedelta(days=2))
    session.add(card)
    session.flush()
    ids = []
    for minutes, action in [(late_minutes, "clock_in"), (720, "clock_out")]:
        punch = m.TimecardPunch(timecard_id=card.id, provider_id=card.provider_id,
                                action=action, state="pending",
                                time=start + timedelta(minutes=minutes))
        session.add(punch)
        session.flush()
        ids.append(punch.id)
    return ids



def provider_punches(site: Any, start: datetime, end: datetime) -> dict[uuid.UUID, Any]:
    """Pat's punches between `start` and `end` as Pat reads them through the API."""
    from app.contract.timekeeping import TimesheetQuery

    pat = client_as(site, "provider@example.com")
    sheet = pat.timesheet(TimesheetQuery(provider=pat.me().provider_id, start_date=start,
                                         end_date=end))
    return {p.id: p for p in sheet.punches}


def export_link(browse: Any, *, javascript: bool) -> Any:
    """The payroll export's download link once the run is done: with JavaScript the panel
    follows the run by itself; without, press Refresh until it shows."""
    from playwright.sync_api import expect

    page = browse.page
    download = page.get_by_role("link", name=re.compile("^Download the payroll export"))
    if javascript:
        expect(download).to_be_visible(timeout=20_000)
        return download
    for _attempt in range(40):
        if download.count():
            break
        refresh = page.get_by_role("link", name=re.compile("^Refresh"))
        if refresh.count():
            browse.click(refresh)
    expect(download).to_be_visible()
    return download
