"""My timecard while a sign-off covers it: who signed it off and when, and no withdrawing of the
punches in it; a reopened sign-off or one of another provider changes nothing."""

from __future__ import annotations

import html as markup
import re
from datetime import timedelta

from app.api import models as m
from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider, hours, now, shift_for

WITHDRAW = "Delete a punch made by mistake"


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _clocked_in(pweb) -> str:
    """A provider of Morgan Manager's with a pending clock-in an hour ago; their email."""
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(1))

    def managed(session):
        session.get(m.Provider, uid(f"user:{email}")).manager_id = uid("user:manager@example.com")

    arrange(pweb, managed)
    pweb.sign_in(email)
    answer = pweb.client.post("/clock/punches", data={"csrf_token": pweb.csrf(),
                                                      "action": "clock_in", "confirm": "yes"})
    assert answer.status_code == 303
    return email


def _sign_off(pweb, email: str, *, by: str = "manager@example.com", reopened: bool = False,
              provider: str | None = None) -> None:
    def make(session):
        start = now() - timedelta(days=1)
        sign_off = m.TimesheetSignOff(
            team_id=uid("team:Emergency"), start_date=start, end_date=start + timedelta(days=2),
            signed_by_id=uid(f"user:{by}"), signed_at=now(),
            reopened_by_id=uid(f"user:{by}") if reopened else None,
            reopened_at=now() if reopened else None)
        sign_off.providers = [session.get(m.Provider, uid(f"user:{provider or email}"))]
        session.add(sign_off)

    arrange(pweb, make)


def test_timecard_says_who_signed_it_off_and_offers_no_withdrawing(pweb):
    email = _clocked_in(pweb)
    before = pweb.client.get("/timecard").get_data(as_text=True)
    assert WITHDRAW in before
    assert "Signed off" not in before
    _sign_off(pweb, email)
    page = pweb.client.get("/timecard")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    note = _text(html.split('class="ts-signed-off" role="note">', 1)[1].split("</p>", 1)[0])
    assert re.search(r"Signed off by Morgan Manager on \w{3} \d+ \w{3}, for \w{3} \d+ \w{3}"
                     r"( \d{4})? \u2013 \w{3} \d+ \w{3}( \d{4})?\. Punches in it can no longer"
                     " change", note), note
    assert WITHDRAW not in html
    assert "/delete" not in html
    assert "You can delete a punch" not in html


def test_timecard_names_no_one_it_may_not_know_and_ignores_reopened_sign_offs(pweb):
    email = _clocked_in(pweb)
    _sign_off(pweb, email, reopened=True)
    _sign_off(pweb, email, provider="provider@example.com")  # Pat's, not this provider's
    html = pweb.client.get("/timecard").get_data(as_text=True)
    assert "Signed off" not in html
    assert WITHDRAW in html
    _sign_off(pweb, email, by="admin@example.com")
    html = pweb.client.get("/timecard", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert html.lstrip().startswith('<div id="timecard-days"')
    note = _text(html.split('class="ts-signed-off" role="note">', 1)[1].split("</p>", 1)[0])
    assert note.startswith("Signed off on ")
    assert "Ada Admin" not in html
    assert WITHDRAW not in html
