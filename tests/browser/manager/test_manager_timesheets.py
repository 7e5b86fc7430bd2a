"""A manager approves a timesheet's clean punches and rejects one with a note."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.browser.manager.conftest import add_punches, add_shift, client_as

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect


def test_approve_clean_punches_and_reject_one(site, tab, arrange, artifacts):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the other journeys")
    start = datetime(2027, 3, 10, 12, 0, tzinfo=UTC)  # Wed 10 Mar 2027, 7:00 AM in New York
    arrange(lambda s: add_shift(s, start=start))
    late, clean = arrange(lambda s: add_punches(s, start=start))
    tab.sign_in("manager@example.com", start="/manage/timesheets")
    tab.goto("/manage/timesheets?period=2027-03-10")
    tab.click(tab.page.get_by_role("navigation", name="Providers")
              .get_by_role("link", name="Pat Provider"))
    late_row = tab.page.locator(f"#punch-{late}")
    expect(late_row).to_contain_text("Clocked in late")
    tab.page.screenshot(path=artifacts / "manager-timesheet.png", full_page=True, caret="initial")
    tab.click(tab.page.get_by_role("button", name="Approve 1 clean punch"))
    expect(tab.page.locator("#messages")).to_contain_text("Approved 1 clean punch.")
    late_row = tab.page.locator(f"#punch-{late}")
    late_row.get_by_label("Note").fill("No swipe at the door; please see me")
    tab.click(late_row.get_by_role("button", name="Reject"))
    expect(tab.page.locator("#messages")).to_contain_text("Punch rejected")
    seen = {p.id: p for p in client_as(site, "provider@example.com").timesheet(
        __import__("app.contract.timekeeping", fromlist=["TimesheetQuery"]).TimesheetQuery(
            provider=client_as(site, "provider@example.com").me().provider_id,
            start_date=datetime(2027, 3, 9, tzinfo=UTC),
            end_date=datetime(2027, 3, 12, tzinfo=UTC))).punches}
    assert seen[clean].state == "approved"
    assert seen[late].state == "rejected"
    assert seen[late].admin_note == "No swipe at the door; please see me"
