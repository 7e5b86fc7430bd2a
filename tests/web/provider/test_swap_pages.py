"""The shift swap pages through the test client, without JavaScript: a provider offers a shift,
a teammate applies with one of theirs in exchange, the first accepts, the manager approves, and
both schedules and both calendar files change; refusals show inline; the manager rejects with a
reason."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime, timedelta

from app.api import models as m
from tests.factories import make_shift, uid
from tests.web.provider.conftest import arrange, fresh_provider

SOON = (datetime.now(UTC) + timedelta(days=6)).replace(hour=12, minute=0, second=0,
                                                        microsecond=0)


def _text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def _shift(pweb, email: str, days: int) -> str:
    def make(session):
        provider = session.get(m.Provider, uid(f"user:{email}"))
        shift = make_shift(session, provider=provider, team=session.get(m.Team,
                                                                        uid("team:Emergency")),
                           role=session.get(m.Role, uid("role:Emergency:Registered Nurse")),
                           start=SOON + timedelta(days=days))
        session.flush()
        return str(shift.id)
    return arrange(pweb, make)


def _post(pweb, path: str, **data: str):
    return pweb.client.post(path, data={"csrf_token": pweb.csrf(), **data})


def _offer(pweb, lister: str, shift: str) -> str:
    pweb.sign_in(lister)
    page = _text(pweb.client.get(f"/swaps?shift={shift}"))
    assert f'<option selected value="{shift}">' in page
    answer = _post(pweb, "/swaps/listings", shift_id=shift, kind="swap",
                   note="Wedding weekend")
    assert answer.status_code == 303
    body = _text(pweb.client.get("/swaps"))
    assert "Your shift is offered to your colleagues." in body
    listing = re.search(r'id="listing-([0-9a-f-]{36})"', body.split("Your offers")[1])
    assert listing is not None
    return listing.group(1)


def test_offer_apply_with_exchange_accept_and_approve_move_both_shifts(pweb):
    lister, taker = fresh_provider(pweb), fresh_provider(pweb)
    mine, theirs = _shift(pweb, lister, 0), _shift(pweb, taker, 1)
    listing = _offer(pweb, lister, mine)

    pweb.sign_in(taker)
    page = _text(pweb.client.get("/swaps"))
    assert f'id="listing-{listing}"' in page
    assert "Wedding weekend" in page
    answer = _post(pweb, f"/swaps/listings/{listing}/apply", **{
        f"apply-{listing}-listing_id": listing, f"apply-{listing}-offered_shift_id": theirs,
        f"apply-{listing}-note": "Happy to help"})
    assert answer.status_code == 303
    body = _text(pweb.client.get("/swaps"))
    assert "You applied for" in body
    assert "Waiting for an answer" in body

    pweb.sign_in(lister)
    body = _text(pweb.client.get("/swaps"))
    application = re.search(r'action="/swaps/applications/([0-9a-f-]{36})/accept"', body)
    assert application is not None
    assert "in exchange" in body
    assert _post(pweb, f"/swaps/applications/{application.group(1)}/accept",
                 version="1").status_code == 303
    assert "Waiting for a manager" in _text(pweb.client.get("/swaps"))

    pweb.sign_in("manager@example.com")
    queue = _text(pweb.client.get("/manage/swaps"))
    assert f'id="application-{application.group(1)}"' in queue
    assert _post(pweb, f"/manage/swaps/{application.group(1)}/approve").status_code == 303
    assert "Approved. Both schedules show the swap." in _text(pweb.client.get("/manage/swaps"))

    pweb.sign_in(lister)
    calendar = pweb.client.get("/shifts/mine.ics").get_data(as_text=True)
    assert f"UID:shift-{theirs}@" in calendar
    assert f"UID:shift-{mine}@" not in calendar
    pweb.sign_in(taker)
    calendar = pweb.client.get("/shifts/mine.ics").get_data(as_text=True)
    assert f"UID:shift-{mine}@" in calendar
    assert f"UID:shift-{theirs}@" not in calendar


def test_a_refusal_shows_its_reason_beside_the_offer(pweb):
    lister, taker = fresh_provider(pweb), fresh_provider(pweb)
    listing = _offer(pweb, lister, _shift(pweb, lister, 2))

    def day_off(session):
        day = (SOON + timedelta(days=2)).date()
        session.add(m.AvailabilityException(provider_id=uid(f"user:{taker}"), start_date=day,
                                            end_date=day + timedelta(days=1),
                                            note="Exam day"))
    arrange(pweb, day_off)
    pweb.sign_in(taker)
    answer = _post(pweb, f"/swaps/listings/{listing}/apply",
                   **{f"apply-{listing}-listing_id": listing})
    body = _text(answer)
    assert answer.status_code == 422
    assert body.split("<title>")[1].startswith("Error:")
    card = body.split(f'id="listing-{listing}"')[1].split("</li>")[0]
    assert "said they cannot work then (Exam day)" in card


def test_manager_rejects_with_a_reason_the_applicant_reads(pweb):
    lister, taker = fresh_provider(pweb), fresh_provider(pweb)
    listing = _offer(pweb, lister, _shift(pweb, lister, 3))
    pweb.sign_in(taker)
    _post(pweb, f"/swaps/listings/{listing}/apply", **{f"apply-{listing}-listing_id": listing})
    pweb.sign_in(lister)
    application = re.search(r'action="/swaps/applications/([0-9a-f-]{36})/accept"',
                            _text(pweb.client.get("/swaps"))).group(1)
    _post(pweb, f"/swaps/applications/{application}/accept")
    pweb.sign_in("manager@example.com")
    empty = _post(pweb, f"/manage/swaps/{application}/reject",
                  **{f"reject-{application}-rejection_reason": " "})
    assert empty.status_code == 422
    assert "Say why, so both colleagues know." in _text(empty)
    done = _post(pweb, f"/manage/swaps/{application}/reject",
                 **{f"reject-{application}-rejection_reason": "Orientation that day"})
    assert done.status_code == 303
    pweb.sign_in(taker)
    body = _text(pweb.client.get("/swaps"))
    assert "Rejected" in body
    assert "Manager's reason: Orientation that day" in body


def test_withdrawing_an_offer_asks_first(pweb):
    lister = fresh_provider(pweb)
    listing = _offer(pweb, lister, _shift(pweb, lister, 4))
    confirm = _text(pweb.client.get(f"/swaps/listings/{listing}/withdraw"))
    assert "Withdraw your offer?" in confirm
    assert _post(pweb, f"/swaps/listings/{listing}/withdraw", version="1").status_code == 303
    assert "Your offer is withdrawn" in _text(pweb.client.get("/swaps"))
    stale = _post(pweb, f"/swaps/listings/{uuid.uuid4()}/withdraw")
    assert stale.status_code == 303
    assert "does not exist" in _text(pweb.client.get("/swaps"))


def test_withdrawing_an_application_asks_first_and_a_stale_version_is_said(pweb):
    lister, taker = fresh_provider(pweb), fresh_provider(pweb)
    listing = _offer(pweb, lister, _shift(pweb, lister, 5))
    pweb.sign_in(taker)
    assert _post(pweb, f"/swaps/listings/{listing}/apply", **{
        f"apply-{listing}-listing_id": listing}).status_code == 303
    found = re.search(r'href="/swaps/applications/([0-9a-f-]{36})/withdraw"',
                      _text(pweb.client.get("/swaps")))
    assert found is not None
    application = found.group(1)
    assert "Withdraw your application?" in _text(
        pweb.client.get(f"/swaps/applications/{application}/withdraw"))
    stale = _post(pweb, f"/swaps/applications/{application}/withdraw", version="7")
    assert stale.status_code == 422
    assert 'role="alert"' in _text(stale)
    assert _post(pweb, f"/swaps/applications/{application}/withdraw",
                 version="1").status_code == 303
    assert "Your application is withdrawn." in _text(pweb.client.get("/swaps"))
