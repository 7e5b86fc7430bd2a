"""Open shifts in time the provider said they can't work: still listed, marked "Unavailable"
with the reason (a day off's note, or their weekly pattern)."""

from __future__ import annotations

import html
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api import models as m
from tests.web.provider.conftest import arrange, fresh_provider, now, shift_for

ZONE = ZoneInfo("America/New_York")


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), ZONE).astimezone(UTC)


def _card(page: str, shift_id: str) -> str:
    start = page.index(f'<li id="open-shift-{shift_id}"')
    return page[start:page.index("</li>", start)]


def test_open_shift_in_a_day_off_is_marked_unavailable_and_others_are_not(pweb):
    viewer = fresh_provider(pweb)
    day = now().astimezone(ZONE).date() + timedelta(days=9)

    def day_off(session: Session) -> None:
        provider = session.scalar(select(m.Provider).where(m.Provider.email == viewer))
        session.add(m.AvailabilityException(provider_id=provider.id, start_date=day,
                                            end_date=day, note="Moving house"))

    arrange(pweb, day_off)
    blocked = str(shift_for(pweb, None, start=_at(day, 7), hours=6, break_at=None))
    free = str(shift_for(pweb, None, start=_at(day + timedelta(days=1), 7), hours=6,
                         break_at=None))
    pweb.sign_in(viewer)
    page = html.unescape(pweb.client.get("/shifts/open").get_data(as_text=True))
    assert "Unavailable: you said you can't work then (Moving house)." in " ".join(
        _card(page, blocked).replace("<strong>", "").replace("</strong>", "").split())
    assert "Unavailable" not in _card(page, free)
