"""My timecard in the browser: the pay period shift by shift (the team timesheet's rows), and
deleting a pending punch made by mistake (with and without JavaScript)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.lists import too_small
from tests.browser.provider.conftest import account, hours, now, shift

pytestmark = pytest.mark.xdist_group("browser-provider")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_delete_a_mistaken_punch(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Mistake Maker")
    worked = shift(site, email, start=now() - hours(1))
    browse.sign_in(email, start="/clock")
    browse.click(browse.page.get_by_role("button", name="Clock in", exact=True))
    browse.click(browse.page.get_by_role("button", name="Clock in anyway"))
    browse.click(browse.page.get_by_role("button", name="Start break", exact=True))
    browse.goto("/timecard")
    page = browse.page
    row = page.locator(f"#row-{worked}")
    expect(row).to_contain_text("Clocked in late")
    expect(row).to_contain_text("Pending review")
    expect(row.get_by_role("link", name=re.compile(r"^Delete "))).to_have_count(0)  # folded
    page.get_by_text("Delete a punch made by mistake").click()
    expect(row.get_by_role("link", name=re.compile(r"^Delete "))).to_have_count(2)
    delete = row.get_by_role("link", name=re.compile(r"^Delete break started"))
    if javascript:
        confirm_page = delete.get_attribute("href")
        browse.goto(confirm_page)  # the no-JS confirmation page, audited here
        expect(page.get_by_role("heading", level=1)).to_have_text("Delete this punch?")
        browse.click(page.get_by_role("link", name="Keep it"))
        page.get_by_text("Delete a punch made by mistake").click()
        page.once("dialog", lambda dialog: dialog.accept())
        browse.click(delete)
    else:
        browse.click(delete)
        expect(page.get_by_role("heading", level=1)).to_have_text("Delete this punch?")
        browse.click(page.get_by_role("button", name="Delete punch"))
    expect(page.get_by_role("status")).to_contain_text("The punch was deleted.")
    page.get_by_text("Delete a punch made by mistake").click()
    expect(page.locator(f"#row-{worked}").get_by_role(
        "link", name=re.compile(r"^Delete "))).to_have_count(1)
    browse.goto("/clock")
    expect(page.get_by_role("button", name="Start break", exact=True)).to_be_visible()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_my_timecard_shows_the_period_by_shift_on_a_phone(site, phones, javascript):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = phones(javascript=javascript)
    email = account(site, "Row Reader")
    worked = shift(site, email, start=now() - hours(2))
    browse.sign_in(email, start="/clock")
    browse.click(browse.page.get_by_role("button", name="Clock in", exact=True))
    browse.click(browse.page.get_by_role("button", name="Clock in anyway"))
    browse.goto("/timecard")
    page = browse.page
    expect(page.get_by_text(re.compile(r"^Pay period \w.* \u2013 \w"))).to_be_visible()
    totals = page.get_by_role("region", name="Totals")
    expect(totals).to_contain_text("Scheduled to date")
    expect(totals).to_contain_text("Scheduled, whole period")
    row = page.get_by_role("article").filter(has=page.locator(f"#row-{worked}-day"))
    expect(row.get_by_role("definition").first).to_contain_text("no clock-out")
    expect(row).to_contain_text("Clocked in late")
    expect(row).to_contain_text("Pending review")
    top = page.locator("[data-record]").first.bounding_box()
    assert top is not None
    assert top["y"] < 844
    page.get_by_text("Delete a punch made by mistake").click()
    assert too_small(page) == []
