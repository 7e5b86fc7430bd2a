"""Browser journeys of the web shell: signing in and out, the menu per user, token refresh,
expired sessions, refused redirects, and tokens kept away from the browser.

Every test runs against the embedded server and against the split UI + API servers.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

# These journeys are about signing in and out, so every sign-in goes through the form.
pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.real_sign_in]

MENUS = {
    "provider@example.com": ["Home", "Clock", "My timecard", "My shifts", "Open shifts",
                             "Time off", "Availability", "Shift swaps"],
    "manager@example.com": ["Home", "Time-off queue", "Timesheets", "Team schedule",
                            "Swaps", "Demand forecast", "Reports"],
    "scheduler@example.com": ["Home", "Find a slot", "Appointments", "Appointment types"],
    "admin@example.com": ["Home", "Time-off queue", "Timesheets", "Team schedule",
                          "Swaps", "Find a slot", "Appointments", "Appointment types",
                          "Pay rules",
                          "Balance resets", "People", "Settings", "Permissions", "Audit trail",
                          "Demand forecast", "Reports"],
}
# Whoever does several kinds of work gets one header menu per kind.
MENU_GROUPS = {"admin@example.com": ["All teams", "Appointments", "Administration"]}
NAMES = {
    "provider@example.com": "Pat Provider",
    "manager@example.com": "Morgan Manager",
    "scheduler@example.com": "Sam Scheduler",
    "admin@example.com": "Ada Admin",
}


@pytest.mark.split_mode
@pytest.mark.parametrize("email", list(MENUS))
def test_sign_in_shows_menu_fitting_permissions_then_sign_out(tab, email):
    tab.sign_in(email)
    page = tab.page
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Hello, {NAMES[email]}")
    assert tab.path() == "/"
    assert tab.menu() == MENUS[email]
    assert tab.menu_groups() == MENU_GROUPS.get(email, [])

    tab.sign_out()
    expect(page.get_by_role("heading", name="You have signed out")).to_be_visible()
    assert tab.path() == "/signed-out"
    tab.goto("/")  # signed out everywhere: the sign-in form, not the home page
    expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    assert tab.site.session(tab.context).get("auth") is None


def test_menu_links_open_their_pages(tab):
    tab.sign_in("provider@example.com")
    menu = tab.page.get_by_role("navigation", name="Main")
    tab.click(menu.get_by_role("link", name="My shifts"))
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("My shifts")
    assert tab.path() == "/shifts/mine"
    expect(menu.get_by_role("link", name="My shifts")).to_have_attribute("aria-current", "page")


def test_wrong_password_shows_inline_error_and_sixth_failure_is_refused(tab):
    tab.sign_in("doctor@example.com", "not-the-password")
    page = tab.page
    expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert")).to_contain_text("The email address or password is not right")
    for _ in range(4):
        tab.fill_credentials("doctor@example.com", "still-wrong")
        expect(page.get_by_role("alert")).to_contain_text("not right")
    tab.fill_credentials("doctor@example.com", "demo")  # the sixth attempt, right or not
    expect(page.get_by_role("alert")).to_contain_text("Too many failed sign-in attempts")
    assert tab.site.session(tab.context).get("auth") is None


def test_access_token_never_reaches_the_browser(tab):
    tab.sign_in("manager@example.com")
    token = tab.site.session(tab.context)["auth"]["access_token"]
    assert len(token) > 100
    page = tab.page
    tab.click(page.get_by_role("navigation", name="Main").get_by_role("link", name="Timesheets"))
    seen = {
        "html": page.content(),
        "document.cookie": page.evaluate("document.cookie"),
        "cookies": repr(tab.context.cookies()),
        "localStorage": page.evaluate("JSON.stringify(Object.entries(localStorage))"),
        "sessionStorage": page.evaluate("JSON.stringify(Object.entries(sessionStorage))"),
    }
    for where, text in seen.items():
        assert token not in text, f"the access token leaked into {where}"
        assert token[-40:] not in text, f"part of the access token leaked into {where}"
    session_cookie = next(c for c in tab.context.cookies() if c["name"] == "shiftdesk_session")
    assert session_cookie["httpOnly"] is True
    assert session_cookie["sameSite"] == "Lax"


def test_expiring_access_token_is_refreshed_without_the_user_noticing(tab):
    tab.sign_in("scheduler@example.com")
    before = tab.site.session(tab.context)["auth"]

    def expire(session):
        session["auth"] = {**session["auth"], "expires_at": time.time() + 30}

    tab.site.edit_session(tab.context, expire)
    menu = tab.page.get_by_role("navigation", name="Main")
    tab.click(menu.get_by_role("link", name="Appointments"))
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Appointments")
    assert tab.path() == "/appointments"
    after = tab.site.session(tab.context)["auth"]
    assert after["access_token"] != before["access_token"]
    assert after["refresh_token"] != before["refresh_token"]  # rotated
    assert after["expires_at"] > time.time() + 120


def test_expired_session_signs_in_again_and_returns_to_wanted_page(tab):
    tab.sign_in("provider@example.com")

    def end(session):
        session["auth"] = {**session["auth"], "expires_at": 0, "refresh_token": "revoked"}

    tab.site.edit_session(tab.context, end)
    tab.context.clear_cookies(name="shiftdesk_idp")  # the provider's own session ended too
    tab.goto("/time-off?view=pending")
    expect(tab.page.get_by_role("heading", name="Sign in")).to_be_visible()
    tab.fill_credentials("provider@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Time off")
    assert tab.path() == "/time-off?view=pending"


@pytest.mark.parametrize("target", ["https://evil.example/steal", "//evil.example/x",
                                    "/\\evil.example", "javascript:alert(1)"])
def test_sign_in_refuses_open_redirect_in_next(tab, target):
    tab.goto("/signin?next=" + target.replace("/", "%2F").replace("\\", "%5C"))
    tab.fill_credentials("provider@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Pat Provider")
    assert tab.url == tab.site.url + "/"


def test_journey_works_without_javascript(no_js_tab):
    tab = no_js_tab
    tab.sign_in("admin@example.com")
    page = tab.page
    expect(page.get_by_role("heading", level=1)).to_have_text("Hello, Ada Admin")
    assert tab.menu() == MENUS["admin@example.com"]
    tab.follow_menu("Timesheets")
    expect(page.get_by_role("heading", level=1)).to_have_text("Timesheets: Emergency")
    tab.goto("/no-such-page")
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    tab.sign_out()
    expect(page.get_by_role("heading", name="You have signed out")).to_be_visible()


def test_boosted_navigation_keeps_page_and_history(tab):
    tab.sign_in("manager@example.com")
    page = tab.page
    menu = page.get_by_role("navigation", name="Main")
    tab.click(menu.get_by_role("link", name="Team schedule"))
    expect(page).to_have_title(re.compile("^Team schedule"))
    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_have_text("Hello, Morgan Manager")
    tab.audit()


def test_unknown_page_shows_not_found_inside_the_frame(tab):
    tab.sign_in("scheduler@example.com")
    response = tab.goto("/appointments/nope/nothing")
    assert response.status == 404
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Page not found")
    assert "Find a slot" in tab.menu()


@pytest.mark.split_mode
def test_split_ui_reaches_api_and_sign_in_only_over_http(site, tab):
    if site.mode != "split":
        pytest.skip("only the split servers show the UI's traffic on the wire")
    before = len(site.api_server_saw())
    tab.sign_in("scheduler@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Sam Scheduler")
    seen = site.api_server_saw()[before:]
    assert "POST /auth/token" in seen  # the code exchange, server to server
    assert "GET /v1/users/me" in seen  # the menu and home page, over HTTP
    assert site.ui.config["SHIFTDESK"].api_url == site.api_server_url


def test_sign_in_gives_a_new_csrf_secret(tab):
    tab.goto("/")  # a visitor: the sign-in form, with a session that remembers where to return
    tab.site.edit_session(tab.context, lambda s: s.__setitem__("csrf_token", "planted-secret"))

    tab.fill_credentials("provider@example.com")

    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Pat Provider")
    secret = tab.site.session(tab.context).get("csrf_token")
    assert secret is not None
    assert secret != "planted-secret"


def test_admin_header_menus_open_one_at_a_time_and_close_on_escape(tab):
    tab.sign_in("admin@example.com")
    nav = tab.page.get_by_role("navigation", name="Main")
    teams, admin = (nav.locator("ul.nav-wide summary", has_text=title)
                    for title in ("All teams", "Administration"))
    settings = nav.get_by_role("link", name="Settings", exact=True)
    expect(settings).to_be_hidden()
    admin.click()
    expect(settings).to_be_visible()
    teams.click()  # opening another menu closes the first
    expect(settings).to_be_hidden()
    expect(nav.get_by_role("link", name="Timesheets")).to_be_visible()
    tab.page.keyboard.press("Escape")
    expect(nav.get_by_role("link", name="Timesheets")).to_be_hidden()
    expect(teams).to_be_focused()
    tab.follow_menu("Settings")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Settings")


def test_admin_header_menus_work_without_javascript(no_js_tab):
    no_js_tab.sign_in("admin@example.com")
    nav = no_js_tab.page.get_by_role("navigation", name="Main")
    nav.locator("ul.nav-wide summary", has_text="Appointments").click()
    no_js_tab.click(nav.get_by_role("link", name="Appointment types"))
    expect(no_js_tab.page.get_by_role("heading", level=1)).to_have_text("Appointment types")
