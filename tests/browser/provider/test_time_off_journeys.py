"""Time-off journeys: a request is made, appears pending with its hours and touched shifts, and
is withdrawn; a policy the provider is not in is refused on its field. With and without
JavaScript."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.browser.provider.conftest import account, now, shift

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_request_time_off_then_cancel_it(site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    email = account(site, "Time Off")
    day = (now() + timedelta(days=12)).astimezone(ZONE).date()
    nine_am = datetime.combine(day, time(9), ZONE).astimezone(UTC)
    shift(site, email, start=nine_am, note="Touched shift")
    browse.sign_in(email, start="/time-off")
    page = browse.page
    expect(page.get_by_role("heading", level=1)).to_have_text("Time off")
    expect(page.get_by_text("You have no time-off requests yet.")).to_be_visible()
    browse.click(page.get_by_role("link", name="Ask for time off"))
    page.get_by_label("Kind of time off").select_option(label="Paid time off")
    page.get_by_label("First day").fill(day.isoformat())
    page.get_by_label("Last day").fill(day.isoformat())
    page.get_by_label("Note for your manager (optional)").fill("Family visit")
    browse.click(page.get_by_role("button", name="Check my shifts on these days"))
    expect(page.get_by_role("region", name="Your shifts on these days")).to_contain_text(
        "Registered Nurse")
    expect(page.get_by_label("Note for your manager (optional)")).to_have_value("Family visit")
    browse.click(page.get_by_role("button", name="Send request"))

    expect(page.get_by_role("heading", level=1)).to_have_text("Time-off request")
    expect(page.get_by_role("status")).to_contain_text("Request sent: 8h to be paid")
    main = page.get_by_role("main")
    expect(main).to_contain_text("Pending")
    expect(main).to_contain_text("Registered Nurse")
    browse.click(page.get_by_role("link", name="Back to time off"))
    request = page.get_by_role("listitem").filter(has_text="Paid time off")
    expect(request).to_contain_text("Pending")

    browse.click(request.get_by_role("link", name="Withdraw"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Withdraw this request?")
    browse.click(page.get_by_role("button", name="Withdraw request"))
    expect(page.get_by_role("status")).to_contain_text("Your time-off request was withdrawn.")
    expect(page.get_by_role("listitem").filter(has_text="Paid time off")).to_contain_text(
        "Cancelled")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_policy_not_mine_and_bad_dates_show_on_fields(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Not In Sick", policies=("pto",))
    browse.sign_in(email, start="/time-off/new")
    page = browse.page
    day = (now() + timedelta(days=9)).astimezone(ZONE).date()
    page.get_by_label("Kind of time off").select_option(label="Sick leave")
    page.get_by_label("First day").fill(day.isoformat())
    page.get_by_label("Last day").fill((day - timedelta(days=1)).isoformat())
    browse.click(page.get_by_role("button", name="Send request"))
    expect(page.get_by_role("alert")).to_contain_text("Last day: The last day can't be before")
    page.get_by_label("Last day").fill(day.isoformat())
    browse.click(page.get_by_role("button", name="Send request"))
    expect(page.get_by_role("alert")).to_contain_text("Kind of time off:")
    expect(page.get_by_label("Kind of time off")).to_have_attribute("aria-invalid", "true")
