"""Layout on a desktop and on a phone (390x844): screenshots of every kind of home page into
test-artifacts/ for people to look at, the phone menu working as a disclosure without script,
thumb-sized controls on the phone only, and one strong focus ring on light and dark backgrounds.
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
    tops = tab.page.locator("ul.nav-wide > li").evaluate_all(
        "items => items.map(item => Math.round(item.getBoundingClientRect().top))")
    assert len(set(tops)) == 1, f"the {user}'s menu wraps onto {len(set(tops))} lines"
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


# The focused element: where it sits (header or not), its outline style, width and colour.
_FOCUSED = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  return {tag: el.tagName.toLowerCase(), text: (el.innerText || el.value || "").trim(),
          header: !!el.closest(".site-header"), main: !!el.closest("main"),
          style: style.outlineStyle, width: parseFloat(style.outlineWidth),
          color: style.outlineColor, visible: el.matches(":focus-visible")};
}"""
DARK_RING = "rgb(11, 34, 57)"  # on white and tints
YELLOW_RING = "rgb(255, 209, 102)"  # on the dark header


def _tab_until(page, wanted, limit=40):
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(_FOCUSED)
        if wanted(focused):
            return focused
    raise AssertionError("no such element takes focus from the keyboard")


def test_keyboard_focus_shows_one_strong_ring_on_light_and_dark(site, phone):
    phone.sign_in("provider@example.com")
    page = phone.page
    skip = _tab_until(page, lambda f: f["text"] == "Skip to main content")
    header = _tab_until(page, lambda f: f["header"])
    button = _tab_until(page, lambda f: f["main"] and f["tag"] in ("a", "button"))
    for focused, colour in ((skip, DARK_RING), (header, YELLOW_RING), (button, DARK_RING)):
        assert focused["visible"], focused
        assert focused["style"] == "solid", focused
        assert focused["width"] >= 3, focused
        assert focused["color"] == colour, focused


def test_phone_controls_are_thumb_sized_and_desktop_keeps_its_own(site, tab, phone):
    """At 390 px the header's menu and sign-out are at least 44x44 px; at 1280 px the
    sign-out button keeps its compact size (the phone rule stops at 600 px)."""
    phone.sign_in("manager@example.com")
    menu = phone.page.get_by_role("navigation", name="Main").get_by_text("Menu")
    box = menu.bounding_box()
    assert min(box["width"], box["height"]) >= 44, box
    phone.click(menu)
    sign_out = phone.page.get_by_role("navigation", name="Main").get_by_role(
        "button", name="Sign out")
    box = sign_out.bounding_box()
    assert min(box["width"], box["height"]) >= 44, box
    tab.sign_in("manager@example.com")
    wide = tab.page.get_by_role("navigation", name="Main").get_by_role("button", name="Sign out")
    assert wide.bounding_box()["height"] < 44
