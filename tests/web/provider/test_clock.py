"""The clock page through the test client: page and fragment, punching, the far-from-shift
confirmation, refused punches shown inline, CSRF."""

from __future__ import annotations

import re

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
