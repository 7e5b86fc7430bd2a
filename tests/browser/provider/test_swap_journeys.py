"""Shift swap journeys: a provider offers a shift, a teammate who said they can't work then is
told why, another applies with one of their shifts in exchange, the lister accepts, the manager
approves, and both schedules and both calendar files show the shifts changed hands; each
decision reaches the bell of the people it concerns and clears when read. With and without
JavaScript."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.provider import swap_steps
from tests.browser.provider.conftest import account, arrange, now, shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_offer_apply_with_exchange_accept_and_approve(site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    page = browse.page
    suffix = "Js" if javascript else "Nojs"
    lister, taker, busy = (account(site, f"Swap {who} {suffix}")
                           for who in ("Lister", "Taker", "Busy"))
    start = (now() + timedelta(days=12)).replace(hour=12, minute=0, second=0)
    listed = shift(site, lister, start=start)
    offered = shift(site, taker, start=start + timedelta(days=1))

    def day_off(session):
        day = start.astimezone(ZONE).date()
        session.add(m.AvailabilityException(provider_id=uid(f"user:{busy}"), start_date=day,
                                            end_date=day, note="Exam day"))
    arrange(site, day_off)

    swap_steps.offer(browse, lister, listed, "Sister's wedding")

    browse.sign_in(busy, start="/swaps")
    offer = page.get_by_role("listitem").filter(has_text="Sister's wedding")
    browse.click(offer.get_by_role("button", name="Apply"))
    expect(page).to_have_title("Error: Shift swaps · Shiftdesk")
    offer = page.get_by_role("listitem").filter(has_text="Sister's wedding")
    expect(offer.get_by_role("alert")).to_contain_text("said they cannot work then (Exam day)")
    browse.sign_out()

    browse.sign_in(taker, start="/swaps")
    offer = page.get_by_role("listitem").filter(has_text="Sister's wedding")
    offer.get_by_label("In exchange").select_option(index=1)
    offer.get_by_label("Note").fill("Glad to")
    browse.click(offer.get_by_role("button", name="Apply"))
    expect(page.get_by_role("status")).to_contain_text("You applied for")
    browse.sign_out()

    def bell():
        return page.get_by_role("navigation", name="Main").get_by_role("link",
                                                                       name="Notifications")

    browse.sign_in(lister, start="/swaps")
    expect(bell()).to_have_accessible_name("Notifications, 1 unread")  # the taker applied
    browse.click(page.get_by_role("button", name="Accept"))
    expect(page.get_by_role("status")).to_contain_text("Accepted.")
    browse.sign_out()

    browse.sign_in(taker, start="/notifications")
    expect(page.locator("[data-record]").filter(has_text="Swap accepted")).to_contain_text(
        "waits for a manager's approval")
    browse.sign_out()

    # The manager's week: the listed shift on the lister's row.
    day = start.astimezone(ZONE).date()
    week = f"/manage/schedule?view=week&week={day - timedelta(days=day.weekday())}"
    browse.sign_in("manager@example.com", start=week)
    expect(page.locator(f"#shift-{listed}").locator("xpath=ancestor::tr")).to_contain_text(
        "Swap Lister")

    browse.goto("/manage/swaps")
    card = page.get_by_role("listitem").filter(has_text="Swap Lister")
    browse.click(card.get_by_role("button", name="Approve"))
    expect(page.get_by_role("status")).to_contain_text("Approved. Both schedules show the swap.")
    # The team's schedule follows: the listed shift on its new holder's row.
    browse.goto(week)
    expect(page.locator(f"#shift-{listed}").locator("xpath=ancestor::tr")).to_contain_text(
        "Swap Taker")
    browse.sign_out()

    for person, gained, lost in ((lister, offered, listed), (taker, listed, offered)):
        browse.sign_in(person, start="/notifications")
        expect(page.locator("[data-record]").filter(has_text="Swap approved")).to_contain_text(
            "your schedule shows the change")
        browse.click(page.get_by_role("button", name="Mark all read"))
        expect(bell()).to_have_accessible_name("Notifications")
        browse.click(page.locator("[data-record]").filter(has_text="Swap approved")
                     .get_by_role("link", name="See your week"))
        expect(page.get_by_role("heading", level=1)).to_contain_text("My shifts")
        browse.goto("/shifts/mine?view=list")
        expect(page.locator(f"#shift-{gained}")).to_be_visible()
        expect(page.locator(f"#shift-{lost}")).to_have_count(0)
        calendar = page.request.get(f"{site.url}/shifts/mine.ics").text()
        assert f"UID:shift-{gained}@" in calendar
        assert f"UID:shift-{lost}@" not in calendar
        browse.sign_out()
