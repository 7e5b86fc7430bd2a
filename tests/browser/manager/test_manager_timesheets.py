"""A manager approves a timesheet's clean punches and rejects one with a note."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.browser.manager.conftest import add_punches, add_shift, provider_punches

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
    seen = provider_punches(site, datetime(2027, 3, 9, tzinfo=UTC),
                            datetime(2027, 3, 12, tzinfo=UTC))
    assert seen[clean].state == "approved"
    assert seen[late].state == "rejected"
    assert seen[late].admin_note == "No swipe at the door; please see me"


def test_fix_and_reject_punches_without_javascript(site, no_js_tab, arrange):
    if site.mode == "split":
        pytest.skip("no-JS journeys run in embedded mode")
    start = datetime(2026, 10, 14, 11, 0, tzinfo=UTC)  # Wed 14 Oct 2026, 7:00 AM in New York
    arrange(lambda s: add_shift(s, start=start))
    late, clean = arrange(lambda s: add_punches(s, start=start))
    tab = no_js_tab
    tab.sign_in("manager@example.com", start="/manage/timesheets")
    tab.goto("/manage/timesheets?period=2026-10-14")
    tab.click(tab.page.get_by_role("navigation", name="Providers")
              .get_by_role("link", name="Pat Provider"))
    late_row = tab.page.locator(f"#punch-{late}")
    late_row.get_by_label("Time").fill("2026-10-14T07:03")
    late_row.get_by_label("Note").fill("Badge reader was down")
    tab.click(late_row.get_by_role("button", name="Save time"))
    expect(tab.page.locator("#messages")).to_contain_text("Punch time corrected.")
    expect(tab.page.locator(f"#punch-{late}")).not_to_contain_text("Clocked in late")
    clean_row = tab.page.locator(f"#punch-{clean}")
    tab.click(clean_row.get_by_role("button", name="Reject"))
    expect(tab.page.locator(f"#punch-{clean}").get_by_role("alert")).to_contain_text(
        "Tell the provider why")
    tab.page.locator(f"#punch-{clean}").get_by_label("Note").fill("Left before handover")
    tab.click(tab.page.locator(f"#punch-{clean}").get_by_role("button", name="Reject"))
    expect(tab.page.locator("#messages")).to_contain_text("Punch rejected")
    seen = provider_punches(site, start - timedelta(hours=6), start + timedelta(days=1))
    assert seen[clean].state == "rejected"
    assert seen[clean].admin_note == "Left before handover"
    assert seen[late].admin_note == "Badge reader was down"
