"""Open shifts and my shifts in the browser: claiming, a second provider's claim of the same
shift, the week and list views and the calendar export; with and without JavaScript, and the
open shifts on a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.provider.conftest import account, hours, now, shift

pytestmark = pytest.mark.xdist_group("browser-provider")


@pytest.mark.split_mode
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_claim_then_second_provider_sees_already_claimed(site, tab, no_js_tab, second_tab,
                                                         javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    first = tab if javascript else no_js_tab
    one, two = account(site, "Claim First"), account(site, "Claim Second")
    shift(site, None, start=now() + hours(30), note="Float to triage")
    first.sign_in(one, start="/shifts/open")
    second_tab.sign_in(two, start="/shifts/open")
    card = first.page.get_by_role("listitem").filter(has_text="Float to triage")
    expect(card).to_have_count(1)
    first.click(card.get_by_role("button", name="Claim"))
    expect(first.page.get_by_role("status")).to_contain_text("Shift claimed")

    other = second_tab.page.get_by_role("listitem").filter(has_text="Float to triage")
    second_tab.click(other.get_by_role("button", name="Claim"))
    expect(second_tab.page.get_by_role("alert")).to_contain_text(
        "Someone else already claimed this shift")

    first.goto("/shifts/mine?view=list")
    expect(first.page.get_by_role("main")).to_contain_text("Float to triage")


def test_shift_too_close_to_start_says_why_it_cannot_be_claimed(site, tab):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    email = account(site, "Late Claimer")
    shift(site, None, start=now() + hours(1), note="Starts within the hour")
    tab.sign_in(email, start="/shifts/open")
    card = tab.page.get_by_role("listitem").filter(has_text="Starts within the hour")
    expect(card).to_contain_text("shifts must be claimed at least 2h before they start")
    expect(card.get_by_role("button", name="Claim")).to_have_count(0)


def test_my_shifts_week_list_and_calendar(site, tab):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    email = account(site, "Week Viewer")
    shift(site, email, start=now() + hours(3), note="Week view shift")
    tab.sign_in(email, start="/shifts/mine")
    page = tab.page
    expect(page.get_by_role("heading", level=1)).to_have_text("My shifts")
    expect(page.get_by_role("main")).to_contain_text("Week view shift")
    tab.click(page.get_by_role("link", name="List"))
    expect(page.get_by_role("heading", name="Next four weeks")).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text("Week view shift")
    with page.expect_download() as download:
        page.get_by_role("link", name="Add to my calendar (.ics)").click()
    body = Path(download.value.path()).read_bytes().decode("utf-8")
    assert body.startswith("BEGIN:VCALENDAR")
    assert "Week view shift" in body.replace("\r\n ", "")


def test_open_shifts_on_a_phone(site, phone, artifacts):
    if site.mode == "split":
        pytest.skip("one phone screenshot is enough; the markup is the same")
    email = account(site, "Phone Claimer")
    shift(site, None, start=now() + hours(28), note="Phone open shift")
    phone.sign_in(email, start="/shifts/open")
    expect(phone.page.get_by_role("main")).to_contain_text("Phone open shift")
    phone.page.screenshot(path=str(artifacts / "provider-open-shifts-phone.png"), full_page=True)
