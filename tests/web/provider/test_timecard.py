"""My timecard through the test client: punches by day with minutes, review states, warnings,
and withdrawing a pending punch."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from app.api import models as m
from tests.factories import make_shift, uid
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
    assert re.search(r"Worked \d+m · Breaks 0m|Worked 1h", html)


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


def _night_on_my_card(pweb, email: str, *, days_ago: int) -> tuple[date, date]:
    """A night shift (7 PM to 7 AM) that began `days_ago` local days ago, clocked in, on a break
    after midnight and clocked out; its pay period began five days before that (so one period
    holds it). Returns the local days it started and ended."""
    zone = pweb.app.config["SHIFTDESK"].zone
    today = now().astimezone(zone).date()
    first = today - timedelta(days=days_ago)
    start = datetime.combine(first, time(19), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(first + timedelta(days=1), time(7), tzinfo=zone).astimezone(UTC)
    anchor = datetime.combine(first - timedelta(days=5), time(0), tzinfo=zone).astimezone(UTC)

    def make(session):
        person = session.get(m.Provider, uid(f"user:{email}"))
        person.pay_period_template = {"type": "biweekly",
                                      "startDate": anchor.strftime("%Y-%m-%dT%H:%M:%S+0000")}
        card = m.Timecard(provider_id=person.id, period_start=anchor,
                          period_end=anchor + timedelta(days=14))
        session.add(card)
        shift = make_shift(session, provider=person, team=person.team,
                           role=session.get(m.Role, uid("role:Emergency:Registered Nurse")),
                           start=start, hours=12, break_at=None)
        shift.end_date = shift.segments[0].end_date = end
        session.flush()
        for action, at in [("clock_in", start), ("break_start", start + hours(6)),
                           ("break_end", start + hours(6.5)), ("clock_out", end)]:
            session.add(m.TimecardPunch(timecard_id=card.id, provider_id=person.id,
                                        action=action, state="pending", time=at))

    arrange(pweb, make)
    return first, first + timedelta(days=1)


def test_night_shift_punches_and_hours_show_under_the_day_it_started(pweb):
    email = fresh_provider(pweb)
    started, ended = _night_on_my_card(pweb, email, days_ago=3)
    pweb.sign_in(email)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    assert f'id="day-{started.isoformat()}"' in html
    assert f'id="day-{ended.isoformat()}"' not in html
    section = html.split(f'id="day-{started.isoformat()}"', 1)[1].split("</section>", 1)[0]
    assert section.count('class="punch ') == 4
    assert "Worked 11h 30m · Breaks 30m" in section
    assert "No shift matches this clock-in" not in html
