"""My timecard in the browser: punches by day with their review, warnings, and deleting a
pending punch made by mistake (with and without JavaScript)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.provider.conftest import account, hours, now, shift

pytestmark = pytest.mark.xdist_group("browser-provider")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_delete_a_mistaken_punch(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Mistake Maker")
    shift(site, email, start=now() - hours(1))
    browse.sign_in(email, start="/clock")
    browse.click(browse.page.get_by_role("button", name="Clock in", exact=True))
    browse.click(browse.page.get_by_role("button", name="Clock in anyway"))
    browse.click(browse.page.get_by_role("button", name="Start break", exact=True))
    browse.goto("/timecard")
    page = browse.page
    expect(page.get_by_role("region", name="Needs attention")).to_contain_text(
        "Clocked in late")
    punches = page.get_by_role("main").get_by_role("listitem").filter(has_text="Pending review")
    expect(punches).to_have_count(2)
    delete = page.get_by_role("link", name=re.compile(r"^Delete break started"))
    if javascript:
        confirm_page = delete.get_attribute("href")
        browse.goto(confirm_page)  # the no-JS confirmation page, audited here
        expect(page.get_by_role("heading", level=1)).to_have_text("Delete this punch?")
        browse.click(page.get_by_role("link", name="Keep it"))
        page.once("dialog", lambda dialog: dialog.accept())
        browse.click(delete)
    else:
        browse.click(delete)
        expect(page.get_by_role("heading", level=1)).to_have_text("Delete this punch?")
        browse.click(page.get_by_role("button", name="Delete punch"))
    expect(page.get_by_role("status")).to_contain_text("The punch was deleted.")
    expect(punches).to_have_count(1)
    browse.goto("/clock")
    expect(page.get_by_role("button", name="Start break", exact=True)).to_be_visible()
