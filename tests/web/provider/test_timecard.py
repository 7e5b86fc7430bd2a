"""My timecard through the test client: punches by day with minutes, review states, warnings,
and withdrawing a pending punch."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from app.api import models as m
from tests.factories import make_shift, uid
from tests.web.provider.conftest import arrange, fresh_provider, hours, now, shift_for


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


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
    row = _text(html.split('<li id="row-', 1)[1].split("</article>", 1)[0])
    assert "Pending review" in row
    assert re.search(r"Your note \(clocked in at \d+:\d\d [AP]M\): traffic", row)
    assert "Clocked in late" in row
    # A clock-in after midnight on a shift that began the day before reads "12:29 AM +1 day".
    assert re.search(r"In\u2013out \d+:\d\d [AP]M( \+1 ?(day)?)? \u2013 no clock-out", row)
    period = _text(html.split('class="ts-period">', 1)[1].split("</p>", 1)[0])
    day = r"(\w{3} \d+ \w{3}( \d{4})?|Today|Tomorrow|Yesterday)"
    assert re.fullmatch(rf"Pay period {day} \u2013 {day} current period", period)


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
    row = _text(html.split('<li id="row-', 1)[1].split("</article>", 1)[0])
    assert "Approved" in row
    assert re.search(r"Manager's note \(clocked in at \d+:\d\d [AP]M\): Fine", row)
    assert re.search(r"Rejected: break started at \d+:\d\d [AP]M \(“You were on the floor”\)",
                     row)
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


def _night_on_my_card(pweb, email: str, *, days_ago: int, break_hours: float = .5,
                      shortest_unpaid_break: int | None = None) -> tuple[date, date]:
    """A night shift (7 PM to 7 AM) that began `days_ago` local days ago, clocked in, on a break
    after midnight (`break_hours` long) and clocked out (under a work rule of its own whose
    shortest unpaid break is `shortest_unpaid_break` minutes, when given); its pay period began
    five days before that (so one period holds it). Returns the local days it started and ended."""
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
        if shortest_unpaid_break is not None:
            rule = m.WorkRule(name=f"Rule of {email}", versions=[m.WorkRuleVersion(
                effective_from=first - timedelta(days=first.weekday() + 8),
                time_zone=zone.key, week_start_day=0, week_start_time="00:00",
                day_start_time="00:00", period_anchor=None, rounding=None, overtime=[],
                meal_deduct_minutes=None, meal_after_minutes=None,
                min_unpaid_break_minutes=shortest_unpaid_break, counting_pay_code_ids=[])])
            session.add(rule)
            session.flush()
            shift.work_rule_override = rule.id
        session.flush()
        for action, at in [("clock_in", start), ("break_start", start + hours(6)),
                           ("break_end", start + hours(6 + break_hours)), ("clock_out", end)]:
            session.add(m.TimecardPunch(timecard_id=card.id, provider_id=person.id,
                                        action=action, state="pending", time=at))

    arrange(pweb, make)
    return first, first + timedelta(days=1)


def test_night_shift_is_one_row_under_the_day_it_started(pweb):
    email = fresh_provider(pweb)
    started, _ = _night_on_my_card(pweb, email, days_ago=3)
    pweb.sign_in(email)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    rows = [r.split("</article>", 1)[0] for r in html.split('<li id="row-')[1:]]
    assert len(rows) == 1
    assert rows[0].count('id="punch-') == 4
    text = _text(rows[0])
    assert f"{started:%a} {started.day} {started:%b}" in text
    assert "7:00 PM \u2013 7:00 AM +1 day" in text
    assert "Worked 11 h 30 min" in text or "Worked 11h 30m" in text
    assert re.search(r"Breaks (30 min|30m)", text)
    assert "No shift matches this clock-in" not in html
    assert "No scheduled shift" not in html


def test_a_break_too_short_to_be_unpaid_says_it_was_paid_as_time_worked(pweb):
    email = fresh_provider(pweb)
    _night_on_my_card(pweb, email, days_ago=3, break_hours=1 / 3, shortest_unpaid_break=30)
    pweb.sign_in(email)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    [row] = [_text(r.split("</article>", 1)[0]) for r in html.split('<li id="row-')[1:]]
    assert re.search(r"Worked 12h\b", row)
    assert re.search(r"Breaks 0m \( ?1:00 AM \+1 day \u2013 1:20 AM \+1 day ?, "
                     r"paid as time worked: shorter than the work rule's shortest unpaid "
                     r"break\)", row), row


def test_previous_period_shows_its_dates_and_rows_without_delete_links(pweb):
    email = fresh_provider(pweb)
    started, _ = _night_on_my_card(pweb, email, days_ago=16)
    pweb.sign_in(email)
    html = pweb.client.get("/timecard").get_data(as_text=True)
    nav = html.split('aria-label="Pay periods"', 1)[1].split("</nav>", 1)[0]
    earlier = re.search(r'<a href="([^"]+)" rel="prev">Previous period</a>', nav)
    assert earlier is not None
    assert "Next period" not in nav  # the current period is the last one with work
    before = pweb.client.get(earlier.group(1).replace("&amp;", "&")).get_data(as_text=True)
    period = _text(before.split('class="ts-period">', 1)[1].split("</p>", 1)[0])
    assert "current period" not in period
    rows = [r.split("</article>", 1)[0] for r in before.split('<li id="row-')[1:]]
    worked = [r for r in rows if 'id="punch-' in r]
    assert len(worked) == 1
    assert f"{started:%a} {started.day} {started:%b}" in _text(worked[0])
    assert "/delete" not in before
    assert "Next period" in before
