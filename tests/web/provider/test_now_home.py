"""Home, "Now", through the test client: the clock on it for a provider (its forms return there
without JavaScript), decisions on their time off since their last look, the counts a manager
sees and the appointments a scheduler sees, and the providers' bottom tabs."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from app.api import models as m
from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider, hours, now, shift_for


def _buttons(html: str) -> list[str]:
    return re.findall(r'name="action" value="([a-z_]+)"', html)


def _post(pweb, path: str, **data: str):
    return pweb.client.post(path, data={"csrf_token": pweb.csrf(), **data})


def _count(html: str, words: str) -> int:
    found = re.search(r"<strong>(\d+)</strong> " + words, html)
    assert found is not None, words
    return int(found.group(1))


def test_provider_lands_on_now_with_the_clock_and_their_areas(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05), note="Pod C tonight")
    pweb.sign_in(email)
    page = pweb.client.get("/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<title>Now · Shiftdesk</title>" in html
    assert "You are clocked out." in html
    assert "Your shift now" in html
    assert "Pod C tonight" in html
    assert _buttons(html) == ["clock_in"]
    assert 'action="/clock/punches"' in html
    assert 'name="back" value="now"' in html
    # The areas stay below the part that needs attention.
    assert html.index('id="clock-panel"') < html.index('id="home-areas"')
    assert '<h2 id="area-provider">My work</h2>' in html


def test_provider_clocks_a_shift_on_now_without_javascript(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    for action, buttons in [("clock_in", ["break_start", "clock_out"]),
                            ("break_start", ["break_end"]),
                            ("break_end", ["break_start", "clock_out"]),
                            ("clock_out", ["clock_in"])]:
        answer = _post(pweb, "/clock/punches", action=action, back="now")
        assert answer.status_code == 303
        assert answer.headers["Location"] == "/"
        html = pweb.client.get("/").get_data(as_text=True)
        assert _buttons(html) == buttons, action
    assert "Shift ended at" in html
    out = re.search(r'name="punch_id" value="([0-9a-f-]+)"', html)
    assert out is not None
    answer = _post(pweb, "/clock/undo", punch_id=out.group(1), back="now")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/"
    html = pweb.client.get("/").get_data(as_text=True)
    assert "Clock-out undone." in html
    assert _buttons(html) == ["break_start", "clock_out"]


def test_clock_in_far_from_a_shift_asks_on_now_itself(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _post(pweb, "/clock/punches", action="clock_in", back="now")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "<title>Now · Shiftdesk</title>" in html
    assert "Check before you clock in." in html
    assert "Clock in anyway" in html
    assert '<a href="/" class="pv-link-button secondary pv-clock-cancel">' in html


def test_clock_form_with_htmx_from_now_answers_with_the_panel(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    answer = pweb.client.post("/clock/punches", headers={"HX-Request": "true"},
                              data={"csrf_token": pweb.csrf(), "action": "clock_in",
                                    "back": "now"})
    body = answer.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="clock-panel"')
    assert 'name="back" value="now"' in body  # the next press still belongs to Now


def _request(pweb, email, status="pending"):
    zone = pweb.app.config["SHIFTDESK"].zone
    first = (now() + timedelta(days=30)).astimezone(zone).date()
    start = datetime.combine(first, time(0), tzinfo=zone).astimezone(UTC)

    def make(session):
        request = m.TimeOffRequest(
            status=status, start_date=start, end_date=start + timedelta(days=1),
            policy_id=uid("policy:pto"), provider_id=uid(f"user:{email}"), note=None,
            paid_hours=8.0, is_full_day=True)
        request.daily_hours = [m.TimeOffDay(date=datetime.combine(first, time(0), tzinfo=UTC),
                                            duration=8.0)]
        session.add(request)
        session.flush()
        return request.id

    return arrange(pweb, make)


def _decide(pweb, request_id, status, reason=None):
    def change(session):
        request = session.get(m.TimeOffRequest, request_id)
        request.status = status
        request.rejection_reason = reason

    arrange(pweb, change)


def test_decisions_since_the_last_look_show_once(pweb):
    email = fresh_provider(pweb)
    approved = _request(pweb, email)
    rejected = _request(pweb, email)
    pweb.sign_in(email)
    html = pweb.client.get("/").get_data(as_text=True)
    assert "Decisions on your time off" not in html  # nothing decided since
    _decide(pweb, approved, "approved")
    _decide(pweb, rejected, "rejected", "Short-staffed that week")
    html = pweb.client.get("/").get_data(as_text=True)
    part = html[html.index("Decisions on your time off"):html.index('id="home-areas"')]
    assert f'href="/time-off/{approved}">Approved: Paid time off' in part
    assert f'href="/time-off/{rejected}">Declined: Paid time off' in part
    assert "Reason: Short-staffed that week" in part
    assert pweb.client.get(f"/time-off/{approved}").status_code == 200
    html = pweb.client.get("/").get_data(as_text=True)
    assert "Decisions on your time off" not in html  # seen now


def test_manager_counts_follow_the_work_waiting_and_link_to_it(pweb):
    nurse = fresh_provider(pweb)
    pweb.sign_in("manager@example.com")
    before = pweb.client.get("/").get_data(as_text=True)
    assert "<title>Now · Shiftdesk</title>" in before
    assert 'id="clock-panel"' not in before
    waiting = _count(before, "requests? waiting")
    to_review = _count(before, "punch(es)? to review")
    open_today = _count(before, "open shifts? today")
    _request(pweb, nurse)
    shift_for(pweb, nurse, start=now() - hours(0.05))
    # Under way already, so no provider test lists it among the shifts they could claim.
    shift_for(pweb, None, start=now() - timedelta(minutes=10), hours=1, break_at=None)
    pweb.sign_in(nurse)
    assert _post(pweb, "/clock/punches", action="clock_in", confirm="yes").status_code == 303
    pweb.sign_in("manager@example.com")
    after = pweb.client.get("/").get_data(as_text=True)
    assert _count(after, "requests? waiting") == waiting + 1
    assert _count(after, "punch(es)? to review") == to_review + 1
    assert _count(after, "open shifts? today") == open_today + 1
    for link in ("/manage/time-off?status=pending", "/manage/timesheets", "/manage/schedule"):
        assert f'href="{link}"' in after
        assert pweb.client.get(link).status_code == 200, link
    assert '<nav class="tab-bar"' not in after  # the tabs are the providers'


def test_scheduler_sees_todays_appointments_linking_to_each(pweb):
    begin = now() + timedelta(minutes=2)

    def book(session):
        appointment = m.Appointment(
            type="Follow-up", appointment_type_id=uid("atype:follow"), status="upcoming",
            provider_id=uid("user:doctor@example.com"), member_id="member-now",
            start_date=begin, end_date=begin + timedelta(minutes=15), location="Room 9")
        session.add(appointment)
        session.flush()
        return appointment.id

    booked = arrange(pweb, book)
    pweb.sign_in("scheduler@example.com")
    html = pweb.client.get("/").get_data(as_text=True)
    part = html[html.index("Today's appointments"):html.index('id="home-areas"')]
    assert f'href="/appointments/{booked}"' in part
    assert "Follow-up · member-now" in part
    assert "Room 9" in part
    assert pweb.client.get(f"/appointments/{booked}").status_code == 200
    today = begin.astimezone(pweb.app.config["SHIFTDESK"].zone).date().isoformat()
    everything = f"/appointments?start={today}&end={today}"
    assert f'href="{everything.replace("&", "&amp;")}"' in part
    assert "member-now" in pweb.client.get(everything).get_data(as_text=True)
    assert "Waiting for you" not in html


def test_admin_sees_the_manager_counts_and_the_areas(pweb):
    pweb.sign_in("admin@example.com")
    html = pweb.client.get("/").get_data(as_text=True)
    assert "Waiting for you" in html
    for words in ("requests? waiting", "punch(es)? to review", "open shifts? today"):
        _count(html, words)
    assert "Today's appointments" in html
    assert html.index("Waiting for you") < html.index('id="home-areas"')


def test_provider_tabs_mark_the_current_page(pweb):
    pweb.sign_in(fresh_provider(pweb))
    for path, current in [("/", "Now"), ("/shifts/mine", "Schedule"),
                          ("/shifts/open", "Open shifts"), ("/time-off", "Time off")]:
        html = pweb.client.get(path).get_data(as_text=True)
        bar = html[html.index('<nav class="tab-bar"'):]
        bar = bar[:bar.index("</nav>")]
        labels = re.findall(r">([A-Za-z ]+)</a>", bar)
        assert labels == ["Now", "Schedule", "Open shifts", "Time off"], path
        assert re.findall(r'aria-current="page">([A-Za-z ]+)</a>', bar) == [current], path
    html = pweb.client.get("/clock").get_data(as_text=True)
    assert 'class="container has-tab-bar"' in html


def test_refused_punch_from_now_shows_inline_on_now(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() - hours(0.05))
    pweb.sign_in(email)
    assert _post(pweb, "/clock/punches", action="clock_in", back="now").status_code == 303
    answer = _post(pweb, "/clock/punches", action="clock_in", back="now")  # a second press
    html = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "<title>Error: Now · Shiftdesk</title>" in html
    assert "Already done: clocked in at" in html
    assert 'role="alert"' in html
    assert _buttons(html) == ["break_start", "clock_out"]
    assert 'id="home-areas"' in html
