"""Notification journeys: the manager declines a provider's time off with a reason; the
provider's bell counts it, the list shows it with the reason and a link to the request, and
marking it read clears the bell. With and without JavaScript."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from tests.browser.manager.conftest import add_request
from tests.browser.provider.conftest import account, arrange

pytestmark = pytest.mark.xdist_group("browser-provider")

# Each run owns its day (a local midnight in New York, winter: UTC-5).
DAYS = {True: 15, False: 16}


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_managers_decision_reaches_the_providers_bell_and_clears_when_read(
        site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    page = browse.page
    email = account(site, "Bell Js" if javascript else "Bell Nojs")
    start = datetime(2027, 2, DAYS[javascript], 5, tzinfo=UTC)
    request_id = arrange(site, lambda s: add_request(s, start=start, provider=email,
                                                     note="Wedding"))

    browse.sign_in(email)
    bell = page.get_by_role("navigation", name="Main").get_by_role("link",
                                                                     name="Notifications")
    expect(bell).to_have_accessible_name("Notifications")
    browse.sign_out()

    browse.sign_in("manager@example.com", start=f"/manage/time-off/{request_id}")
    row = page.locator(f"#request-{request_id}")
    row.get_by_label("Reason for declining").fill("Three nurses are already off that week")
    browse.click(row.get_by_role("button", name="Decline"))
    expect(page.locator("#messages")).to_contain_text("Declined")
    browse.sign_out()

    browse.sign_in(email)
    expect(bell).to_have_accessible_name("Notifications, 1 unread")
    browse.click(bell)
    expect(page.get_by_role("heading", level=1)).to_have_text("Notifications")
    notice = page.locator("[data-record]").filter(has_text="Time off declined")
    expect(notice).to_contain_text("“Three nurses are already off that week”")
    expect(notice).to_contain_text("New")
    expect(notice.get_by_role("link", name="See the request")).to_have_attribute(
        "href", f"/time-off/{request_id}")
    browse.click(notice.get_by_role("button", name="Mark read"))
    expect(page.locator("#messages")).to_contain_text("Marked read.")
    expect(bell).to_have_accessible_name("Notifications")
    expect(page.locator("[data-record]").filter(has_text="Time off declined")).not_to_contain_text(
        "New")
    browse.click(page.locator("[data-record]").get_by_role("link", name="See the request"))
    expect(page.get_by_role("main")).to_contain_text("Three nurses are already off that week")
