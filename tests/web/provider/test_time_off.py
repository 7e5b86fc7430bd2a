"""Time off through the test client: the list and form, sending a request, problems on their
fields, the request page with hours paid and touched shifts, withdrawing."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, time, timedelta

from app.api import models as m
from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider, now, shift_for

PTO = str(uid("policy:pto"))
SICK = str(uid("policy:sick"))


def _local(pweb, instant):
    return instant.astimezone(pweb.app.config["SHIFTDESK"].zone).date()


def _ask(pweb, *, partial: bool = False, **fields: str):
    data = {"csrf_token": pweb.csrf(), "policy_id": PTO, "is_full_day": "full", **fields}
    headers = {"HX-Request": "true"} if partial else {}
    return pweb.client.post("/time-off", data=data, headers=headers)


def test_time_off_page_lists_requests_and_form(pweb):
    pweb.sign_in("provider@example.com")
    page = pweb.client.get("/time-off")
    body = html.unescape(page.get_data(as_text=True))
    assert page.status_code == 200
    assert "<h1>Time off</h1>" in body
    assert "Pending" in body
    assert "Reason: Short-staffed that week" in body
    assert 'href="/time-off/new"' in body
    form = html.unescape(pweb.client.get("/time-off/new").get_data(as_text=True))
    assert "<h1>Ask for time off</h1>" in form
    assert '<option value="' + PTO + '">Paid time off</option>' in form


def test_request_is_made_shows_hours_and_touched_shifts_then_cancelled(pweb):
    email = fresh_provider(pweb)
    day = _local(pweb, now() + timedelta(days=10))
    # 9 AM on that local day (the UTC date differs from the site's each evening).
    zone = pweb.app.config["SHIFTDESK"].zone
    shift_for(pweb, email, start=datetime.combine(day, time(9), tzinfo=zone).astimezone(UTC))
    pweb.sign_in(email)
    answer = _ask(pweb, start_date=day.isoformat(), end_date=day.isoformat(), note="Wedding")
    assert answer.status_code == 303
    show = pweb.client.get(answer.headers["Location"])
    body = html.unescape(show.get_data(as_text=True))
    assert "Request sent: 8h to be paid." in body
    assert "Pending" in body
    assert "Shifts it touches" in body
    assert "Registered Nurse" in body
    cancel_url = re.search(r'href="(/time-off/[0-9a-f-]+/cancel)"', body).group(1)
    assert "Withdraw this request?" in pweb.client.get(cancel_url).get_data(as_text=True)
    done = pweb.client.post(cancel_url, data={"csrf_token": pweb.csrf()})
    assert done.status_code == 303
    listing = pweb.client.get("/time-off").get_data(as_text=True)
    assert "Your time-off request was withdrawn." in listing
    assert "Cancelled" in listing


def test_missing_fields_are_inline_422(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _ask(pweb, policy_id="", start_date="", end_date="")
    body = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 422
    assert "<title>Error: Ask for time off" in body
    assert 'id="start_date-error"' in body
    assert "Enter the first day." in body
    assert "Choose the kind of time off." in body


def test_part_day_needs_times(pweb):
    pweb.sign_in(fresh_provider(pweb))
    day = _local(pweb, now() + timedelta(days=3)).isoformat()
    answer = _ask(pweb, start_date=day, end_date=day, is_full_day="part", start_time="",
                  end_time="")
    body = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert 'id="start_time-error"' in body
    assert 'id="end_time-error"' in body


def test_part_day_request_pays_its_hours(pweb):
    pweb.sign_in(fresh_provider(pweb))
    day = _local(pweb, now() + timedelta(days=4)).isoformat()
    answer = _ask(pweb, start_date=day, end_date=day, is_full_day="part", start_time="09:00",
                  end_time="12:30")
    assert answer.status_code == 303
    body = pweb.client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Request sent: 3h 30m to be paid." in html.unescape(body)


def test_policy_the_provider_is_not_in_shows_on_policy_field(pweb):
    pweb.sign_in(fresh_provider(pweb, policies=("pto",)))
    day = _local(pweb, now() + timedelta(days=5)).isoformat()
    answer = _ask(pweb, partial=True, policy_id=SICK, start_date=day, end_date=day)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert body.lstrip().startswith('<section id="time-off-form"')
    assert 'id="policy_id-error"' in body
    assert 'aria-invalid="true"' in body


def test_last_day_before_first_is_on_last_day(pweb):
    pweb.sign_in(fresh_provider(pweb))
    first = _local(pweb, now() + timedelta(days=6))
    answer = _ask(pweb, start_date=first.isoformat(),
                  end_date=(first - timedelta(days=2)).isoformat())
    body = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 422
    assert "The last day can't be before the first day." in body
    assert 'id="end_date-error"' in body


def test_api_validation_lands_on_its_field(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _ask(pweb, start_date="1800-01-01", end_date="1800-01-02")
    body = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert 'id="start_date-error"' in body or 'id="end_date-error"' in body


def test_check_my_shifts_lists_them_and_sends_nothing(pweb):
    email = fresh_provider(pweb)
    start = now() + timedelta(days=15)
    shift_for(pweb, email, start=start)
    day = _local(pweb, start).isoformat()
    pweb.sign_in(email)
    answer = _ask(pweb, partial=True, start_date=day, end_date=day, intent="check")
    body = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 200
    assert body.lstrip().startswith('<section id="time-off-form"')
    assert "Your shifts on these days" in body
    assert "Registered Nurse" in body
    listing = pweb.client.get("/time-off").get_data(as_text=True)
    assert "You have no time-off requests yet." in listing


# Dates as people say them, duplicates, withdrawing and asking to cancel ---------------------------

DASH = "\u2013"


def _leave(pweb, email, *, first, days=1, status="approved", **extra):
    """A full-day PTO request of `email` from local day `first`, `days` long; returns its id."""
    zone = pweb.app.config["SHIFTDESK"].zone
    start = datetime.combine(first, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(first + timedelta(days=days), time(0), tzinfo=zone).astimezone(UTC)

    def make(session):
        request = m.TimeOffRequest(
            status=status, start_date=start, end_date=end, policy_id=uid("policy:pto"),
            provider_id=uid(f"user:{email}"), note=None, paid_hours=8.0 * days,
            is_full_day=True, **extra)
        request.daily_hours = [m.TimeOffDay(date=datetime.combine(
            first + timedelta(days=i), time(0), tzinfo=UTC), duration=8.0) for i in range(days)]
        session.add(request)
        session.flush()
        return request.id

    return arrange(pweb, make)


def _said(day):
    return f"{day:%a} {day.day}"


def test_two_day_request_reads_as_two_days_on_list_and_page(pweb):
    pweb.sign_in(fresh_provider(pweb))
    first = _local(pweb, now() + timedelta(days=20))
    second = first + timedelta(days=1)
    answer = _ask(pweb, start_date=first.isoformat(), end_date=second.isoformat())
    assert answer.status_code == 303
    page = html.unescape(pweb.client.get(answer.headers["Location"]).get_data(as_text=True))
    listing = html.unescape(pweb.client.get("/time-off").get_data(as_text=True))
    for body in (page, listing):
        assert "· 2 days" in body
        assert f"{_said(second)} {second:%b}" in body
        assert f"{_said(first)}" in body
        assert "+0000" not in body


def test_duplicate_request_is_refused_inline_naming_the_held_one(pweb):
    pweb.sign_in(fresh_provider(pweb))
    day = _local(pweb, now() + timedelta(days=30))
    assert _ask(pweb, start_date=day.isoformat(), end_date=day.isoformat()).status_code == 303
    for partial in (False, True):
        answer = _ask(pweb, partial=partial, start_date=day.isoformat(),
                      end_date=day.isoformat(), note="Asked twice")
        body = html.unescape(answer.get_data(as_text=True))
        assert answer.status_code == 422
        assert "You already asked for time off on these days: Paid time off" in body
        assert f"{_said(day)} {day:%b}" in body
        assert "· 1 day (waiting for your manager)" in body
        assert 'role="alert"' in body
        assert f'value="{day.isoformat()}"' in body
        assert "Asked twice" in body
        assert "+0000" not in body
        assert "time-off-request-overlap" not in body
    assert body.lstrip().startswith('<section id="time-off-form"')


def test_pending_request_is_withdrawn_at_once(pweb):
    email = fresh_provider(pweb)
    request_id = _leave(pweb, email, first=_local(pweb, now() + timedelta(days=9)),
                        status="pending")
    pweb.sign_in(email)
    page = html.unescape(pweb.client.get(f"/time-off/{request_id}").get_data(as_text=True))
    assert "Withdraw this request" in page
    confirm = pweb.client.get(f"/time-off/{request_id}/cancel").get_data(as_text=True)
    assert "Withdraw this request?" in confirm
    done = pweb.client.post(f"/time-off/{request_id}/cancel", data={"csrf_token": pweb.csrf()})
    assert done.headers["Location"] == "/time-off"
    assert "Your time-off request was withdrawn." in pweb.client.get("/time-off").get_data(
        as_text=True)


def test_approved_leave_asks_the_manager_then_waits(pweb):
    email = fresh_provider(pweb)
    request_id = _leave(pweb, email, first=_local(pweb, now() + timedelta(days=8)))
    pweb.sign_in(email)
    listing = html.unescape(pweb.client.get("/time-off").get_data(as_text=True))
    assert "Ask to cancel" in listing
    assert "Withdraw" not in listing
    confirm = html.unescape(pweb.client.get(f"/time-off/{request_id}/cancel").get_data(
        as_text=True))
    assert "Ask your manager to cancel this leave?" in confirm
    assert "your manager decides" in confirm
    done = pweb.client.post(f"/time-off/{request_id}/cancel", data={"csrf_token": pweb.csrf()})
    assert done.status_code == 303
    assert done.headers["Location"] == f"/time-off/{request_id}"
    page = html.unescape(pweb.client.get(done.headers["Location"]).get_data(as_text=True))
    assert "Your manager has been asked to cancel this leave." in page
    assert "Cancellation requested \u2014 waiting for your manager" in page
    assert "Ask to cancel" not in page


def test_declined_cancellation_shows_the_managers_reason(pweb):
    email = fresh_provider(pweb)
    request_id = _leave(pweb, email, first=_local(pweb, now() + timedelta(days=11)),
                        cancellation_declined_at=now(),
                        cancellation_decline_reason="Cover is already booked")
    pweb.sign_in(email)
    page = html.unescape(pweb.client.get(f"/time-off/{request_id}").get_data(as_text=True))
    assert "Your manager kept this leave: Cover is already booked" in page
    assert "Ask to cancel" in page


def test_started_leave_has_no_cancel_action_and_says_to_ask_the_manager(pweb):
    email = fresh_provider(pweb)
    request_id = _leave(pweb, email, first=_local(pweb, now() - timedelta(days=1)), days=3)
    ended = _leave(pweb, email, first=_local(pweb, now() - timedelta(days=10)), days=1)
    pweb.sign_in(email)
    listing = html.unescape(pweb.client.get("/time-off").get_data(as_text=True))
    assert "Ask to cancel" not in listing
    assert "Withdraw" not in listing
    page = html.unescape(pweb.client.get(f"/time-off/{request_id}").get_data(as_text=True))
    assert "This leave has started. To change it, ask your manager." in page
    assert f"/time-off/{request_id}/cancel" not in page
    over = html.unescape(pweb.client.get(f"/time-off/{ended}").get_data(as_text=True))
    assert "This leave is over. To change it, ask your manager." in over
    confirm = pweb.client.get(f"/time-off/{request_id}/cancel")
    assert confirm.status_code == 303
    forged = pweb.client.post(f"/time-off/{request_id}/cancel",
                              data={"csrf_token": pweb.csrf()})
    assert forged.status_code == 303
    page = html.unescape(pweb.client.get(forged.headers["Location"]).get_data(as_text=True))
    assert "This leave has started, so it can't be cancelled here." in page


def test_declined_cancellation_without_a_reason_still_says_it_was_kept(pweb):
    email = fresh_provider(pweb)
    request_id = _leave(pweb, email, first=_local(pweb, now() + timedelta(days=11)),
                        cancellation_declined_at=now())
    pweb.sign_in(email)
    page = html.unescape(pweb.client.get(f"/time-off/{request_id}").get_data(as_text=True))
    assert "Your manager kept this leave." in page
