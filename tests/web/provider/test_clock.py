"""The clock page through the test client: page and fragment, punching, the far-from-shift
confirmation, refused punches shown inline, CSRF."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

from tests.web.provider.conftest import fresh_provider, hours, now, shift_for


def _buttons(html: str) -> list[str]:
    return re.findall(r'name="action" value="([a-z_]+)"', html)


def _punch(pweb, action: str, *, partial: bool = False, **extra: str):
    headers = {"HX-Request": "true"} if partial else {}
    return pweb.client.post("/clock/punches", data={"csrf_token": pweb.csrf(), "action": action,
                                                    **extra}, headers=headers)


def test_clock_page_shows_time_shift_and_clock_in(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(1), note="Pod C tonight")
    pweb.sign_in(email)
    page = pweb.client.get("/clock")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<h1>Clock</h1>" in html
    assert "Your shift now" in html
    assert "Registered Nurse" in html
    assert "Emergency" in html
    assert "Pod C tonight" in html
    assert _buttons(html) == ["clock_in"]
    assert "You are clocked out." in html
    assert "No punches yet today." in html


def test_clock_panel_fragment_for_htmx(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    page = pweb.client.get("/clock", headers={"HX-Request": "true"})
    html = page.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="clock-panel"')
    assert "HX-Request" in page.headers["Vary"]


def test_punches_change_buttons_through_a_shift(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    answer = _punch(pweb, "clock_in")
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith("/clock")
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "Clocked in at" in html
    assert _buttons(html) == ["break_start", "clock_out"]
    fragment = _punch(pweb, "break_start", partial=True, provider_note="lunch")
    body = fragment.get_data(as_text=True)
    assert fragment.status_code == 200
    assert body.lstrip().startswith('<section id="clock-panel"')
    assert _buttons(body) == ["break_end"]
    assert 'id="messages"' in body
    assert "hx-swap-oob" in body
    assert "Break started at" in body
    assert "lunch" in body
    assert "Worked 0m · Breaks 0m" in body


def test_second_identical_punch_is_refused_softly_and_records_nothing(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    assert _punch(pweb, "clock_in").status_code == 303
    again = _punch(pweb, "clock_in", partial=True)
    body = again.get_data(as_text=True)
    assert again.status_code == 200
    assert "Already done: clocked in at" in body
    assert 'role="alert"' in body
    assert _buttons(body) == ["break_start", "clock_out"]
    assert body.count('class="pv-punch-action">Clocked in<') == 1


def test_stale_action_shows_what_changed_and_the_allowed_actions(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    _punch(pweb, "clock_in")
    _punch(pweb, "break_start")
    answer = _punch(pweb, "clock_out")  # as if pressed on a page loaded before the break
    body = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "Your timecard changed since this page was loaded: break started at" in body
    assert _buttons(body) == ["break_end"]
    assert "<title>Error: Clock" in body


def test_clock_in_far_from_a_shift_asks_to_confirm(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() + hours(1.5))
    pweb.sign_in(email)
    answer = _punch(pweb, "clock_in", provider_note="came early")
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "Check before you clock in." in body
    assert "Clocking in now will be marked early" in body
    assert "Clock in anyway" in body
    assert 'name="confirm" value="yes"' in body
    assert 'value="came early"' in body
    assert "No punches yet today." in body
    confirmed = _punch(pweb, "clock_in", confirm="yes", provider_note="came early")
    assert confirmed.status_code == 303
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert _buttons(html) == ["break_start", "clock_out"]
    assert "came early" in html


def test_clock_in_without_any_shift_warns_missing_shift(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    body = _punch(pweb, "clock_in").get_data(as_text=True)
    assert "You have no shift now or starting in the next 2 hours" in body


def test_clock_in_late_warns(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(1))
    pweb.sign_in(email)
    body = _punch(pweb, "clock_in").get_data(as_text=True)
    assert "Clocking in now will be marked late" in body
    assert "1h ago" in body


def test_unknown_action_is_inline_422(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    answer = _punch(pweb, "nap")
    assert answer.status_code == 422
    assert "Choose one of the buttons below." in answer.get_data(as_text=True)


def test_punch_without_csrf_is_refused(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    answer = pweb.client.post("/clock/punches", data={"action": "clock_in"})
    assert answer.status_code == 400


def test_clock_now_fragment_and_full_redirect(pweb):
    pweb.sign_in(fresh_provider(pweb))
    fragment = pweb.client.get("/clock/now", headers={"HX-Request": "true"})
    assert fragment.get_data(as_text=True).lstrip().startswith('<p id="clock-now"')
    assert pweb.client.get("/clock/now").status_code == 303


def test_enter_in_the_note_cannot_punch(pweb):
    pweb.sign_in(fresh_provider(pweb))
    html = pweb.client.get("/clock").get_data(as_text=True)
    form = html[html.index('<form method="post" action="/clock/punches"'):]
    first_button = form[form.index("<button"):form.index("</button>")]
    assert "disabled" in first_button


def test_today_totals_pair_punches_and_count_a_running_break():
    import uuid
    from datetime import timedelta

    from app.contract.timekeeping import TimecardMe, TimecardPunchRead
    from app.web.clock.views import ClockState

    start = now().replace(hour=12, minute=0, second=0)

    def punch(action, minutes, state="pending"):
        at = start + timedelta(minutes=minutes)
        return TimecardPunchRead(id=uuid.uuid4(), timecard_id=uuid.uuid4(),
                                 provider_id=uuid.uuid4(), created_at=at, updated_at=at,
                                 action=action, state=state, time=at, provider_note=None,
                                 admin_note=None)

    punches = [punch("clock_in", 0), punch("break_start", 240), punch("break_end", 270),
               punch("clock_out", 480), punch("clock_in", 500, "rejected"),
               punch("clock_in", 600), punch("break_start", 660)]
    card = TimecardMe(punches=punches, next_action=["break_end"])
    state = ClockState(now=start + timedelta(minutes=700), card=card, current=None,
                       upcoming=None, today=punches)
    assert state.totals == (450 + 60, 30 + 40)
    assert state.status == "You are on a break."


# Timers, the shift just ended and Undo ------------------------------------------------------------

def _punches(pweb, email):
    """The provider's punches in the database, oldest first: (id, action, time)."""
    from sqlalchemy import select

    from app.api import models as m
    from tests.factories import uid
    from tests.web.provider.conftest import arrange

    return arrange(pweb, lambda session: [
        (p.id, p.action, p.time) for p in session.scalars(
            select(m.TimecardPunch).where(m.TimecardPunch.provider_id == uid(f"user:{email}"))
            .order_by(m.TimecardPunch.time))])


def _move_punches(pweb, email, back):
    """Move every punch of `email` `back` into the past, as if made that long ago."""
    from sqlalchemy import select

    from app.api import models as m
    from tests.factories import uid
    from tests.web.provider.conftest import arrange

    def move(session):
        for p in session.scalars(select(m.TimecardPunch)
                                 .where(m.TimecardPunch.provider_id == uid(f"user:{email}"))):
            p.time = p.time - back

    arrange(pweb, move)


def _undo(pweb, punch_id, *, partial: bool = False, **extra: str):
    headers = {"HX-Request": "true"} if partial else {}
    return pweb.client.post("/clock/undo", data={"csrf_token": pweb.csrf(),
                                                 "punch_id": str(punch_id), **extra},
                            headers=headers)


def _clocked_out_shift(pweb):
    """A provider who clocked in, took a break and clocked out just now; returns the email."""
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    for action in ("clock_in", "break_start", "break_end", "clock_out"):
        assert _punch(pweb, action).status_code == 303
    return email


def test_status_after_a_break_says_on_shift_since_the_clock_in(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    _punch(pweb, "clock_in")
    _move_punches(pweb, email, hours(2))
    clock_in = _punches(pweb, email)[0][2]
    _punch(pweb, "break_start")
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "You are on a break." in html
    assert "Break since" in html
    _punch(pweb, "break_end")
    html = pweb.client.get("/clock").get_data(as_text=True)
    from app.web.filters import format_time

    said = format_time(clock_in, pweb.app.config["SHIFTDESK"].zone)
    begin = html.index('id="clock-status"')
    status = html[begin:html.index("</h2>", begin)]
    assert "You are clocked in." in status
    instant = clock_in.replace(microsecond=0).isoformat()
    assert f'On shift since <time datetime="{instant}">{said}</time>' in status


def test_running_timers_tick_from_the_worked_time_and_say_as_of_without_javascript(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    _punch(pweb, "clock_in")
    _move_punches(pweb, email, timedelta(hours=1, minutes=5))
    html = pweb.client.get("/clock").get_data(as_text=True)
    timer = r'<time class="pv-timer" datetime="PT1H5M(\d+)S" data-ticking>([^<]+)</time>'
    assert re.search(timer, html) is not None
    assert "Worked this shift" in html
    assert re.search(r"As of <time datetime=\"[^\"]+\">\d{1,2}:\d\d [AP]M</time>", html)
    _punch(pweb, "break_start")
    html = pweb.client.get("/clock").get_data(as_text=True)
    # On a break the worked time stands still and the break's timer runs.
    assert re.search(r'<time class="pv-timer" datetime="PT1H5M\d+S">', html)
    assert re.search(r'<time class="pv-timer" datetime="PT0H0M\d+S" data-ticking>', html)
    assert "On break" in html


def test_clock_out_sums_up_the_shift_and_offers_undo(pweb):
    email = _clocked_out_shift(pweb)
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "Shift ended at" in html
    assert "Worked 0m · Breaks 0m" in html
    assert "Clocked in on time" in html
    assert re.search(r"Clocked out [^<]+ early", html)  # the 8-hour shift has hours to go
    assert "Undo clock-out" in html
    out = _punches(pweb, email)[-1]
    assert out[1] == "clock_out"
    assert f'name="punch_id" value="{out[0]}"' in html


def test_undo_takes_back_the_clock_out_and_clocks_in_again(pweb):
    email = _clocked_out_shift(pweb)
    out_id = _punches(pweb, email)[-1][0]
    answer = _undo(pweb, out_id)
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith("/clock")
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "Clock-out undone. You are clocked in again" in html
    assert _buttons(html) == ["break_start", "clock_out"]
    assert "You are clocked in." in html
    assert [a for _id, a, _t in _punches(pweb, email)] == ["clock_in", "break_start",
                                                           "break_end"]


def test_undo_with_htmx_answers_with_the_panel(pweb):
    email = _clocked_out_shift(pweb)
    answer = _undo(pweb, _punches(pweb, email)[-1][0], partial=True)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert body.lstrip().startswith('<section id="clock-panel"')
    assert _buttons(body) == ["break_start", "clock_out"]
    assert "Clock-out undone." in body  # out of band, in #messages


def test_undo_after_the_window_is_refused_inline_and_keeps_the_clock_out(pweb):
    email = _clocked_out_shift(pweb)
    _move_punches(pweb, email, timedelta(minutes=3))
    out_id = _punches(pweb, email)[-1][0]
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "Shift ended at" in html
    assert "Undo clock-out" not in html
    answer = _undo(pweb, out_id)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "This clock-out can no longer be undone" in body
    assert 'role="alert"' in body
    assert "<title>Error: Clock" in body
    assert _buttons(body) == ["clock_in"]
    assert [a for _id, a, _t in _punches(pweb, email)][-1] == "clock_out"


def test_undo_of_another_punch_is_refused_and_deletes_nothing(pweb):
    email = _clocked_out_shift(pweb)
    punches = _punches(pweb, email)
    clock_in_id = punches[0][0]
    for tampered in (clock_in_id, uuid.uuid4(), "../../shifts"):
        answer = _undo(pweb, tampered, partial=True)
        body = answer.get_data(as_text=True)
        assert answer.status_code == 200
        assert "This clock-out can no longer be undone" in body
    assert _punches(pweb, email) == punches


def test_start_break_and_clock_out_are_apart(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    _punch(pweb, "clock_in")
    html = pweb.client.get("/clock").get_data(as_text=True)
    actions = html[html.index('class="pv-clock-actions"'):]
    # Clock out stands alone below the others, in its own group.
    assert actions.index('value="break_start"') < actions.index('class="pv-clock-end"') \
        < actions.index('value="clock_out"')


def _short_breaks_paid(pweb, shift_id: uuid.UUID) -> None:
    """Give the shift a work rule of its own whose shortest unpaid break is 30 minutes."""
    from app.api import models as m
    from tests.web.provider.conftest import arrange

    def make(session):
        today = now().date()
        rule = m.WorkRule(name=f"Short breaks paid {shift_id}", versions=[m.WorkRuleVersion(
            effective_from=today - timedelta(days=today.weekday() + 8),
            time_zone="America/New_York", week_start_day=6, week_start_time="00:00",
            day_start_time="00:00", period_anchor=None, rounding=None, overtime=[],
            meal_deduct_minutes=None, meal_after_minutes=None, min_unpaid_break_minutes=30,
            counting_pay_code_ids=[])])
        session.add(rule)
        session.flush()
        session.get(m.Shift, shift_id).work_rule_override = rule.id

    arrange(pweb, make)


def test_the_summary_of_a_shift_ended_gives_the_hours_the_timecard_pays(pweb):
    """A 20-minute break under a rule that pays breaks shorter than 30 minutes: the clock sums
    the shift up as My timecard pays it, and says what the punches alone give."""
    email = fresh_provider(pweb)
    _short_breaks_paid(pweb, shift_for(pweb, email, start=now() - hours(3.5)))
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes")  # late for the shift, to be moved back
    _move_punches(pweb, email, timedelta(hours=3))
    _punch(pweb, "break_start")
    _move_punches(pweb, email, timedelta(minutes=20))
    _punch(pweb, "break_end")
    _punch(pweb, "clock_out")
    for page in ("/clock", "/"):
        html = pweb.client.get(page).get_data(as_text=True)
        assert "Shift ended at" in html
        assert "Worked 3h 20m · Breaks 0m" in html, page
        assert "As your timecard pays it: 3h between your punches." in html
        assert 'href="/timecard">See why on My timecard</a>' in html


def test_the_summary_says_nothing_more_when_the_timecard_pays_the_punches(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(3.5))
    pweb.sign_in(email)
    _punch(pweb, "clock_in", confirm="yes")  # late for the shift, to be moved back
    _move_punches(pweb, email, timedelta(hours=3))
    _punch(pweb, "clock_out")
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert "Worked 3h 0m · Breaks 0m" in html or "Worked 3h · Breaks 0m" in html
    assert "As your timecard pays it" not in html
