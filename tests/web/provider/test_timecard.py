"""My timecard through the test client: punches by day with minutes, review states, warnings,
and withdrawing a pending punch."""

from __future__ import annotations

import re

from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider, hours, now, shift_for


def _punch(pweb, action: str, **extra: str) -> None:
    answer = pweb.client.post("/clock/punches", data={"csrf_token": pweb.csrf(),
                                                      "action": action, **extra})
    assert answer.status_code == 303


def test_timecard_lists_punches_with_state_and_warning(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(1))
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes", provider_note="traffic")
    page = pweb.client.get("/timecard")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<h1>My timecard</h1>" in html
    assert "Clocked in" in html
    assert "Pending review" in html
    assert "Your note: traffic" in html
    assert "Clocked in late" in html
    assert "Needs attention" in html
    assert re.search(r"Worked \d+ min · Breaks 0 min|Worked 1 h", html)


def test_timecard_fragment_for_htmx(pweb):
    pweb.sign_in(fresh_provider(pweb))
    page = pweb.client.get("/timecard", headers={"HX-Request": "true"})
    html = page.get_data(as_text=True)
    assert html.lstrip().startswith('<div id="timecard-days"')
    assert "No punches yet this pay period." in html


def test_seeded_timecard_shows_approved_and_pending(pweb):
    pweb.sign_in("icu.nurse@example.com")
    html = pweb.client.get("/timecard").get_data(as_text=True)
    assert "<h1>My timecard</h1>" in html


def test_delete_pending_punch_after_confirmation(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now())
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes")
    html = pweb.client.get("/timecard").get_data(as_text=True)
    link = re.search(r'href="(/timecard/punches/[0-9a-f-]+/delete)"', html)
    assert link is not None
    confirm = pweb.client.get(link.group(1))
    assert confirm.status_code == 200
    assert "Delete this punch?" in confirm.get_data(as_text=True)
    done = pweb.client.post(link.group(1), data={"csrf_token": pweb.csrf()})
    assert done.status_code == 303
    after = pweb.client.get("/timecard").get_data(as_text=True)
    assert "The punch was deleted." in after
    assert "No punches yet this pay period." in after
    clock = pweb.client.get("/clock").get_data(as_text=True)
    assert 'value="clock_in"' in clock


def test_delete_unknown_punch_is_404_page(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = pweb.client.get("/timecard/punches/00000000-0000-4000-8000-000000000000/delete")
    assert answer.status_code == 404


def test_reviewed_punches_show_state_and_manager_note(pweb):
    from sqlalchemy import select

    from app.api import models as m
    from tests.factories import uid
    from tests.web.provider.conftest import arrange

    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now())
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes")
    _punch(pweb, "break_start")

    def review(session):
        punches = session.scalars(select(m.TimecardPunch).where(
            m.TimecardPunch.provider_id == uid(f"user:{email}"))
            .order_by(m.TimecardPunch.time)).all()
        punches[0].state, punches[0].admin_note = "approved", "Fine"
        punches[1].state, punches[1].admin_note = "rejected", "You were on the floor"

    arrange(pweb, review)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    assert "Approved" in html
    assert "Rejected" in html
    assert "Manager's note: You were on the floor" in html
    assert html.count("/delete") == 0


def test_missing_clock_out_tells_the_provider_what_to_do_without_promising_a_page(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(14))
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes")

    def back_to_the_shift(session):
        from sqlalchemy import update

        from app.api import models as m
        session.execute(update(m.TimecardPunch)
                        .where(m.TimecardPunch.provider_id == uid(f"user:{email}"))
                        .values(time=now() - hours(14)))

    arrange(pweb, back_to_the_shift)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    assert "A clock-in has no clock-out. Tell your manager what time you left." in html
    assert "missing punch" not in html
