"""Time-off balances on the provider's pages through the test client: each balance with its
history on /time-off, the request form's balance before and after, requests the policy would
not allow refused inline before anything is sent (beyond the balance, inside the waiting
period, beyond the annual use limit), and the manager's approval refused inline by the API.

They share the provider tests' database: each test makes a provider of its own, member of a
policy of its own that keeps balances (the seeded PTO keeps none).
"""

from __future__ import annotations

import html
import itertools
import re
import uuid
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.seed import install_roles
from app.web.time_off.balances import amount_text, quantity, request_cost
from tests.factories import make_provider, uid
from tests.web.conftest import Web
from tests.web.provider.conftest import arrange

_COUNTER = itertools.count(1)


def _today(web: Web) -> date:
    return datetime.now(UTC).astimezone(web.app.config["SHIFTDESK"].zone).date()


def _person(web: Web, *, unit: str = "hours", entries: tuple[tuple[str, int, str], ...] = (),
            hired_days_ago: int | None = None, daily_hours: float | None = None,
            **settings: Any) -> tuple[str, str, str]:
    """A new provider in Emergency, member of a new policy with balance settings and the
    ledger `entries` (kind, days before today, amount); returns (email, provider id, policy
    id)."""
    n = next(_COUNTER)
    email = f"balance{n}-{uuid.uuid4().hex[:6]}@example.com"
    policy_id = uuid.uuid4()
    today = _today(web)

    def make(session: Session) -> str:
        rbac = install_roles(session)
        team = session.get(m.Team, uid("team:Emergency"))
        person = make_provider(session, email, team,
                               default_role_id=uid("role:Emergency:Registered Nurse"))
        session.flush()
        person.user.rbac_roles = [rbac["Provider"]]
        person.daily_hours = daily_hours
        if hired_days_ago is not None:
            person.hire_date = datetime.now(UTC) - timedelta(days=hired_days_ago)
        policy = m.TimeOffPolicy(id=policy_id, type="paid-time-off",
                                 name=f"Vacation {n}", description=None, accrual_unit=unit)
        policy.members = [person]
        session.add(policy)
        session.flush()
        session.add(m.TimeOffAccrualSettings(
            policy_id=policy_id, method="per_period", rate="8",
            start_date=today - timedelta(days=400), period="monthly", **settings))
        for i, (kind, ago, text) in enumerate(entries):
            value = Fraction(text)
            session.add(m.TimeOffLedgerEntry(
                provider_id=person.id, policy_id=policy_id, kind=kind,
                effective_date=today - timedelta(days=ago), amount_numerator=value.numerator,
                amount_denominator=value.denominator, source_key=f"test:{policy_id}:{i}",
                created_at=datetime.now(UTC) + timedelta(seconds=i)))
        return str(person.id)

    provider_id = arrange(web, make)
    return email, provider_id, str(policy_id)


def _ask(web: Web, policy: str, first: date, last: date, *, intent: str = "send",
         partial: bool = False, **fields: str) -> Any:
    data = {"csrf_token": web.csrf(), "policy_id": policy, "is_full_day": "full",
            "start_date": first.isoformat(), "end_date": last.isoformat(), "intent": intent,
            **fields}
    headers = {"HX-Request": "true"} if partial else {}
    return web.client.post("/time-off", data=data, headers=headers)


def _requests_of(web: Web, provider_id: str) -> int:
    def count(session: Session) -> int:
        return session.scalar(select(func.count()).select_from(m.TimeOffRequest).where(
            m.TimeOffRequest.provider_id == uuid.UUID(provider_id))) or 0
    return arrange(web, count)


def _text(response: Any) -> str:
    return " ".join(html.unescape(response.get_data(as_text=True)).split())


# Formatting and cost, without the app ----------------------------------------------------------


def test_amounts_read_exactly():
    assert amount_text(Fraction(75, 2)) == "37.5"
    assert amount_text(Fraction(3)) == "3"
    assert amount_text(Fraction(-1, 4)) == "-0.25"
    assert amount_text(Fraction(1, 1000000)) == "0.000001"
    assert amount_text(Fraction(208, 3)) == "69.33 (208/3)"
    assert quantity(Fraction(1), "days") == "1 day"
    assert quantity(Fraction(3), "days") == "3 days"
    assert quantity(Fraction(75, 2), "hours") == "37.5 hours"


def test_request_cost_counts_days_and_part_days_as_the_api_does():
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("America/New_York")
    start = datetime(2026, 3, 6, tzinfo=zone)
    end = datetime(2026, 3, 9, tzinfo=zone)  # three local days, one of them 23 hours long
    assert request_cost(start, end, zone=zone, is_full_day=True, daily_hours=None,
                        unit="hours") == 24
    assert request_cost(start, end, zone=zone, is_full_day=True, daily_hours=12.5,
                        unit="hours") == Fraction(75, 2)  # 3 days of 12.5 hours
    assert request_cost(start, end, zone=zone, is_full_day=True, daily_hours=None,
                        unit="days") == 3
    part_start = datetime(2026, 3, 6, 9, 0, tzinfo=zone)
    part_end = datetime(2026, 3, 6, 13, 20, tzinfo=zone)
    assert request_cost(part_start, part_end, zone=zone, is_full_day=False, daily_hours=None,
                        unit="hours") == Fraction("4.3333")


# The time-off page -----------------------------------------------------------------------------


def test_time_off_page_shows_each_balance_and_its_history(pweb):
    email, _, policy = _person(pweb, entries=(
        ("accrual", 60, "24"), ("accrual", 30, "24"), ("usage", 20, "-16"),
        ("reversal", 10, "8"), ("adjustment", 5, "-0.5")))
    pweb.sign_in(email)
    page = pweb.client.get("/time-off")
    body = _text(page)
    assert page.status_code == 200
    assert f'id="balance-{policy}"' in body
    assert "39.5 hours" in body  # 24 + 24 - 16 + 8 - 0.5
    assert "<summary>History" in body
    rows = re.findall(r"<tr><td>[^<]*</td><td>(\w[\w ]*?)(?:<span[^>]*>[^<]*</span>)?</td>"
                      r'<td class="pv-num">([^<]*)</td><td class="pv-num">([^<]*)</td></tr>',
                      body)
    assert rows == [("Adjustment", "\u22120.5 hours", "39.5 hours"),
                    ("Given back", "+8 hours", "40 hours"),
                    ("Used", "\u221216 hours", "32 hours"),
                    ("Accrued", "+24 hours", "48 hours"),
                    ("Accrued", "+24 hours", "24 hours")]
    # The request action stays first, before the balances.
    assert body.index("Ask for time off</a>") < body.index("Your balances")


def test_days_policy_with_a_floor_and_pending_shows_available(pweb):
    email, provider_id, policy = _person(pweb, unit="days", allow_negative=True,
                                         negative_floor="-2",
                                         entries=(("accrual", 40, "3"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=30)
    assert _ask(pweb, policy, first, first).status_code == 303  # one day, pending
    body = _text(pweb.client.get("/time-off"))
    assert "3 days" in body
    assert "1 day waiting for your manager" in body
    assert "1 day waiting for your manager · 4 days available · may go down to -2 days" in body
    assert _requests_of(pweb, provider_id) == 1


def test_page_without_balances_shows_none(pweb):
    pweb.sign_in("manager@example.com")  # no provider: no balances, no error
    page = pweb.client.get("/time-off")
    assert page.status_code == 200
    assert "Your balances" not in page.get_data(as_text=True)


# The request form -------------------------------------------------------------------------------


def test_form_shows_balance_before_and_after_the_request(pweb):
    email, provider_id, policy = _person(pweb, entries=(("accrual", 30, "40"),))
    pweb.sign_in(email)
    assert "Your balances:" in _text(pweb.client.get("/time-off/new"))
    first = _today(pweb) + timedelta(days=14)
    answer = _ask(pweb, policy, first, first + timedelta(days=2), intent="check")
    body = _text(answer)
    assert answer.status_code == 200
    assert "balance 40 hours → <strong>16 hours</strong> after this request (24 hours)" in body
    assert "Not allowed" not in body
    assert _requests_of(pweb, provider_id) == 0  # checking sends nothing
    partial = _ask(pweb, policy, first, first, intent="check", partial=True)
    assert "balance 40 hours → <strong>32 hours</strong>" in _text(partial)
    assert "<html" not in partial.get_data(as_text=True)


def test_part_day_request_costs_its_hours(pweb):
    email, _, policy = _person(pweb, entries=(("accrual", 30, "10"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=9)
    body = _text(_ask(pweb, policy, first, first, intent="check", is_full_day="part",
                      start_time="09:00", end_time="11:30"))
    assert "balance 10 hours → <strong>7.5 hours</strong> after this request (2.5 hours)" in body


def test_a_whole_day_costs_the_providers_daily_hours(pweb):
    email, _, policy = _person(pweb, daily_hours=12.5, entries=(("accrual", 30, "40"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=15)
    body = _text(_ask(pweb, policy, first, first + timedelta(days=1), intent="check"))
    assert "balance 40 hours → <strong>15 hours</strong> after this request (25 hours)" in body


def test_pending_requests_that_would_not_all_fit_are_pointed_out(pweb):
    email, provider_id, policy = _person(pweb, entries=(("accrual", 30, "24"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=60)
    assert _ask(pweb, policy, first, first + timedelta(days=1)).status_code == 303  # 16 hours
    later = first + timedelta(days=7)
    answer = _ask(pweb, policy, later, later + timedelta(days=1))  # 16 more: 32 > 24
    assert answer.status_code == 303  # each fits the balance alone: sent, the API decides
    check = _text(_ask(pweb, policy, later + timedelta(days=7), later + timedelta(days=7),
                       intent="check"))
    assert "You also have requests waiting that use 32 hours" in check
    assert _requests_of(pweb, provider_id) == 2


def test_request_beyond_the_balance_is_refused_inline_and_not_sent(pweb):
    email, provider_id, policy = _person(pweb, entries=(("accrual", 30, "16"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=20)
    answer = _ask(pweb, policy, first, first + timedelta(days=2))  # 24 hours, 16 held
    body = _text(answer)
    assert answer.status_code == 422
    assert "<title>Error: Ask for time off" in body
    assert 'class="form-errors" role="alert"' in body
    assert "This needs 24 hours, but your Vacation" in body
    assert "balance has 16 hours available" in body
    assert "balance 16 hours → <strong>-8 hours</strong>" in body
    assert _requests_of(pweb, provider_id) == 0
    # Within the balance it is sent (plain POST, no JavaScript): 303 to the request.
    sent = _ask(pweb, policy, first, first + timedelta(days=1))
    assert sent.status_code == 303
    assert _requests_of(pweb, provider_id) == 1


def test_negative_floor_allows_going_below_zero_but_not_past_the_floor(pweb):
    email, provider_id, policy = _person(pweb, allow_negative=True, negative_floor="-8",
                                         entries=(("accrual", 30, "8"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=40)
    assert _ask(pweb, policy, first, first + timedelta(days=2), partial=True
                ).status_code == 422  # 24 > 8 - (-8)
    assert _requests_of(pweb, provider_id) == 0
    assert _ask(pweb, policy, first, first + timedelta(days=1)).status_code == 303  # 16


def test_waiting_period_is_refused_inline(pweb):
    email, provider_id, policy = _person(pweb, hired_days_ago=10, waiting_period_days=90,
                                         entries=(("accrual", 5, "40"),))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=7)
    answer = _ask(pweb, policy, first, first)
    body = _text(answer)
    assert answer.status_code == 422
    assert "can be used from" in body
    assert "90 days after you started" in body
    assert _requests_of(pweb, provider_id) == 0


def test_annual_use_limit_is_refused_inline(pweb):
    email, provider_id, policy = _person(pweb, annual_use_limit="16",
                                         entries=(("accrual", 1, "80"), ("usage", 0, "-8")))
    pweb.sign_in(email)
    first = _today(pweb) + timedelta(days=1)
    answer = _ask(pweb, policy, first, first + timedelta(days=1))
    body = _text(answer)
    assert answer.status_code == 422
    assert "only 8 hours of the year's 16 hours of Vacation" in body
    assert _requests_of(pweb, provider_id) == 0


def test_dates_at_the_calendar_edges_do_not_fail(pweb):
    email, _, policy = _person(pweb, entries=(("accrual", 30, "8"),))
    pweb.sign_in(email)
    for first, last in ((date(1, 1, 1), date(1, 1, 2)), (date(9999, 12, 30),
                                                          date(9999, 12, 31))):
        answer = _ask(pweb, policy, first, last)
        assert answer.status_code == 422, first
        assert answer.status_code < 500


# The manager's approval, refused by the API --------------------------------------------------


def test_manager_approval_beyond_the_balance_is_refused_inline(pweb):
    _, provider_id, policy = _person(pweb, entries=(("accrual", 30, "8"),))
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=50)

    def add(session: Session) -> uuid.UUID:
        req = m.TimeOffRequest(status="pending", start_date=start,
                               end_date=start + timedelta(days=2), policy_id=uuid.UUID(policy),
                               provider_id=uuid.UUID(provider_id), paid_hours=16.0,
                               is_full_day=True)
        req.daily_hours = [m.TimeOffDay(date=start + timedelta(days=i), duration=8.0)
                           for i in range(2)]
        session.add(req)
        session.flush()
        return req.id

    request_id = arrange(pweb, add)
    pweb.sign_in("manager@example.com")
    answer = pweb.client.post(f"/manage/time-off/{request_id}/approve", data={
        "csrf_token": pweb.csrf(), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off?status=pending"})
    body = _text(answer)
    assert answer.status_code == 409
    assert "Time-off balance too low" in body
    assert "needs 16 hours, 8 available" in body


def test_htmx_preview_answers_the_balance_alone_as_the_form_changes(pweb):
    email, provider_id, policy = _person(pweb, entries=(("accrual", 30, "40"),))
    pweb.sign_in(email)
    form = _text(pweb.client.get("/time-off/new"))
    assert 'hx-post="/time-off/preview" hx-trigger="change"' in form
    assert '<div id="balance-preview-slot">' in form
    first = _today(pweb) + timedelta(days=21)
    data = {"csrf_token": pweb.csrf(), "policy_id": policy, "is_full_day": "full",
            "start_date": first.isoformat(), "end_date": (first + timedelta(days=5)).isoformat()}
    answer = pweb.client.post("/time-off/preview", data=data, headers={"HX-Request": "true"})
    body = _text(answer)
    assert answer.status_code == 200
    assert body.startswith('<div id="balance-preview-slot">')
    assert "balance 40 hours → <strong>-8 hours</strong> after this request (48 hours)" in body
    assert "Not allowed: This needs 48 hours" in body
    half = pweb.client.post("/time-off/preview", data={**data, "end_date": ""},
                            headers={"HX-Request": "true"})
    assert half.status_code == 200  # not a whole request yet: an empty slot, no errors
    assert _text(half).startswith('<div id="balance-preview-slot"></div>')
    assert "Enter the last day" not in _text(half)
    assert _requests_of(pweb, provider_id) == 0
