"""Layout on a desktop and on a phone (390x844): screenshots of every kind of home page into
test-artifacts/ for people to look at, and the phone menu working as a disclosure without script.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

PHONE_WIDTH = 390
USERS = ["provider", "manager", "scheduler", "admin"]


@pytest.mark.parametrize("user", USERS)
def test_home_pages_render_on_desktop_and_phone(site, tab, phone, artifacts, user):
    if site.mode != "embedded":
        pytest.skip("the split mode serves the same pages")
    for browse, size in ((tab, "desktop"), (phone, "phone")):
        browse.sign_in(f"{user}@example.com")
        expect(browse.page.get_by_role("heading", level=1)).to_contain_text("Hello")
        browse.page.screenshot(path=artifacts / f"home-{user}-{size}.png", full_page=True)
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE_WIDTH, "the phone layout scrolls sideways"


def test_phone_menu_opens_as_disclosure(site, phone, artifacts):
    phone.sign_in("provider@example.com")
    page = phone.page
    menu = page.get_by_role("navigation", name="Main")
    expect(menu.get_by_role("link", name="Clock")).to_be_hidden()
    phone.click(menu.get_by_text("Menu"))
    expect(menu.get_by_role("link", name="Clock")).to_be_visible()
    if site.mode == "embedded":
        page.screenshot(path=artifacts / "menu-provider-phone.png")
    phone.click(menu.get_by_role("link", name="Clock"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Clock")


def test_sign_in_and_error_pages_render_on_phone(site, phone, artifacts):
    if site.mode != "embedded":
        pytest.skip("the split mode serves the same pages")
    phone.goto("/")
    expect(phone.page.get_by_label("Password")).to_be_visible()
    phone.page.screenshot(path=artifacts / "sign-in-phone.png", full_page=True)
    phone.goto("/missing")
    expect(phone.page.get_by_role("heading", level=1)).to_have_text("Page not found")
    phone.page.screenshot(path=artifacts / "not-found-phone.png", full_page=True)
