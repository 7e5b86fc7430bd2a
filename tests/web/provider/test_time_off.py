"""Time off through the test client: the list and form, sending a request, problems on their
fields, the request page with hours paid and touched shifts, cancelling."""

from __future__ import annotations

import html
import re
from datetime import timedelta

from tests.factories import uid
from tests.web.provider.conftest import fresh_provider, hours, now, shift_for

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
    assert "Waiting for your manager" in body
    assert "Reason: Short-staffed that week" in body
    assert 'href="/time-off/new"' in body
    form = html.unescape(pweb.client.get("/time-off/new").get_data(as_text=True))
    assert "<h1>Ask for time off</h1>" in form
    assert '<option value="' + PTO + '">Paid time off</option>' in form


def test_request_is_made_shows_hours_and_touched_shifts_then_cancelled(pweb):
    email = fresh_provider(pweb)
    day = _local(pweb, now() + timedelta(days=10))
    shift_for(pweb, email, start=now() + timedelta(days=10) - hours(now().hour) + hours(14))
    pweb.sign_in(email)
    answer = _ask(pweb, start_date=day.isoformat(), end_date=day.isoformat(), note="Wedding")
    assert answer.status_code == 303
    show = pweb.client.get(answer.headers["Location"])
    body = html.unescape(show.get_data(as_text=True))
    assert "Request sent: 8 hours to be paid." in body
    assert "Waiting for your manager" in body
    assert "Shifts it touches" in body
    assert "Registered Nurse" in body
    cancel_url = re.search(r'href="(/time-off/[0-9a-f-]+/cancel)"', body).group(1)
    assert "Cancel this request?" in pweb.client.get(cancel_url).get_data(as_text=True)
    done = pweb.client.post(cancel_url, data={"csrf_token": pweb.csrf()})
    assert done.status_code == 303
    listing = pweb.client.get("/time-off").get_data(as_text=True)
    assert "Your time-off request was cancelled." in listing
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
    assert "Request sent: 3.5 hours to be paid." in html.unescape(body)


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
