"""Every refusal a colleague can meet applying for an offered shift, each once, in the nurse's
browser, with and without JavaScript: the reason shows inline on the offer it concerns, and
nothing is applied for."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.manager.conftest import add_request
from tests.browser.provider.conftest import account, arrange, now, shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")


def _offer(site, lister: str, shift_id: uuid.UUID, note: str, *, changed: bool = False) -> None:
    """`lister` offers `shift_id` as a give-away (`changed`: the shift was edited since)."""
    def make(session):
        listed = session.get(m.Shift, shift_id)
        session.add(m.ShiftSwapListing(
            shift_id=shift_id, shift_version=listed.version + (1 if changed else 0),
            provider_id=uid(f"user:{lister}"), team_id=uid("team:Emergency"), kind="giveaway",
            note=note, expires_at=listed.start_date, status="open"))
    arrange(site, make)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_each_reason_an_application_is_refused_shows_on_its_offer(site, tab, no_js_tab,
                                                                  javascript):
    if site.mode != "embedded":
        pytest.skip("the refusals are the API's; one mode shows them")
    browse = tab if javascript else no_js_tab
    page = browse.page
    lister, taker = account(site, "Refusal Lister"), account(site, "Refusal Taker")
    base = (now() + timedelta(days=40)).replace(hour=13, minute=0, second=0)

    # The taker works the first day, has approved time off on the second and may work ten
    # hours a week; the offers fall on those days, in an hour, in a week of their own, and one
    # on a shift a manager edited after it was offered.
    busy_day, leave_day, long_week = base, base + timedelta(days=14), base + timedelta(days=28)
    shift(site, taker, start=busy_day - timedelta(hours=2))

    def leave_and_limit(session):
        request = session.get(m.TimeOffRequest, add_request(
            session, start=leave_day.replace(hour=5), provider=taker))
        request.status = "approved"
        session.get(m.Provider, uid(f"user:{taker}")).max_weekly_hours = 10
    arrange(site, leave_and_limit)
    offers = {
        "Covering the busy day": (shift(site, lister, start=busy_day), False,
                                  "already works 1 overlapping shift"),
        "Covering the leave day": (shift(site, lister, start=leave_day), False,
                                   "approved time off"),
        "Starting within the hour": (shift(site, lister, start=now() + timedelta(minutes=60)),
                                     False, "at least 120 minutes before they start"),
        "A long one": (shift(site, lister, start=long_week, hours=12), False,
                       "more than their limit of 10 hours a week"),
        "Edited since": (shift(site, lister, start=base + timedelta(days=50)), True,
                         "changed since it was offered"),
    }
    # Each run's offers are its own (another run's, in the same team, show on the page too).
    offers = {f"{note}, {lister}": offer for note, offer in offers.items()}
    for note, (shift_id, changed, _) in offers.items():
        _offer(site, lister, shift_id, note, changed=changed)

    browse.sign_in(taker, start="/swaps")
    for note, (_, _, reason) in offers.items():
        offer = page.get_by_role("listitem").filter(has_text=note)
        browse.click(offer.get_by_role("button", name="Apply"))
        offer = page.get_by_role("listitem").filter(has_text=note)
        expect(offer.get_by_role("alert")).to_contain_text(reason)
    expect(page.get_by_role("region", name="Your applications")).not_to_contain_text(lister)
