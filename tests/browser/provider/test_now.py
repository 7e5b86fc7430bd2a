"""Now (home) journeys: a provider lands on Now and works a whole shift there — timers moving,
a break, clocking out, the summary, Undo — on a phone and a wide screen, with and without
JavaScript; the phone's bottom tabs; a manager's counts and a scheduler's appointments, each
link followed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.conftest import DESKTOP, PHONE, Browse
from tests.browser.provider.conftest import account, arrange, hours, now, shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")


def _buttons(page):
    return page.get_by_role("main").get_by_role("button", name=re.compile(
        r"^(Clock in|Start break|End break|Clock out)$"))


def _press(browse: Browse, name: str) -> None:
    browse.click(browse.page.get_by_role("button", name=name, exact=True))


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_provider_works_a_shift_on_now(site, screens, javascript, size):
    if site.mode == "split" and (not javascript or size == PHONE):
        pytest.skip("the split server runs the wide-screen journey with JavaScript")
    browse = screens(javascript=javascript, size=size)
    page = browse.page
    email = account(site, "Now Nurse")
    shift(site, email, start=now() - hours(0.02))
    browse.sign_in(email)
    assert browse.path() == "/"
    expect(page).to_have_title(re.compile(r"^Now"))
    expect(page.get_by_role("heading", name="Your shift now")).to_be_visible()
    expect(_buttons(page)).to_have_text(["Clock in"])

    _press(browse, "Clock in")
    assert browse.path() == "/"
    expect(_buttons(page)).to_have_text(["Start break", "Clock out"])
    status = page.get_by_role("heading", level=2, name=re.compile("You are clocked in"))
    expect(status).to_contain_text("On shift since")
    clocked_in = page.locator("#clock-status time").inner_text()
    worked = page.get_by_text("Worked this shift").locator("xpath=..").locator("time")
    as_of = page.get_by_text(re.compile(r"^As of \d{1,2}:\d\d [AP]M$"))
    if javascript:
        first = worked.inner_text()
        expect(worked).not_to_have_text(first, timeout=5000)  # it ticks every second
        expect(as_of).to_be_hidden()
    else:
        expect(as_of).to_be_visible()

    _press(browse, "Start break")
    expect(_buttons(page)).to_have_text(["End break"])
    expect(page.get_by_role("heading", level=2, name=re.compile("You are on a break"))) \
        .to_be_visible()
    on_break = page.get_by_text("On break", exact=True).locator("xpath=..").locator("time")
    if javascript:
        first = on_break.inner_text()
        expect(on_break).not_to_have_text(first, timeout=5000)
    _press(browse, "End break")
    expect(_buttons(page)).to_have_text(["Start break", "Clock out"])
    # After the break the status still counts from the clock-in, not the break's end.
    expect(page.get_by_role("heading", level=2, name=re.compile("You are clocked in"))) \
        .to_contain_text(f"On shift since {clocked_in}")

    _press(browse, "Clock out")
    expect(_buttons(page)).to_have_text(["Clock in"])
    ended = page.get_by_role("region", name=re.compile("^Shift ended at"))
    expect(ended).to_contain_text("Worked")
    expect(ended).to_contain_text("Clocked in on time")
    expect(ended).to_contain_text(re.compile(r"Clocked out .+ early"))
    browse.click(ended.get_by_role("button", name="Undo clock-out"))
    expect(page.get_by_role("status")).to_contain_text("Clock-out undone.")
    expect(_buttons(page)).to_have_text(["Start break", "Clock out"])
    expect(page.get_by_role("heading", level=2, name=re.compile("You are clocked in"))) \
        .to_contain_text(f"On shift since {clocked_in}")
    assert browse.path() == "/"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_phone_tabs_lead_to_the_provider_pages(site, screens, javascript):
    if site.mode == "split":
        pytest.skip("the tabs are the same markup on both servers")
    browse = screens(javascript=javascript, size=PHONE)
    page = browse.page
    browse.sign_in(account(site, "Tab Nurse"))
    tabs = page.get_by_role("navigation", name="Shortcuts")
    expect(tabs.get_by_role("link")).to_have_text(["Now", "Schedule", "Open shifts", "Time off"])
    expect(tabs.get_by_role("link", name="Now")).to_have_attribute("aria-current", "page")
    for name, heading in [("Schedule", "My shifts"), ("Open shifts", "Open shifts"),
                          ("Time off", "Time off"), ("Now", re.compile("^Hello"))]:
        link = tabs.get_by_role("link", name=name)
        box = link.bounding_box()
        assert box is not None
        assert box["height"] >= 44, name
        assert box["width"] >= 44, name
        assert box["y"] + box["height"] <= PHONE["height"] + 1, name  # fixed at the bottom
        browse.click(link)
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        expect(tabs.get_by_role("link", name=name)).to_have_attribute("aria-current", "page")
    # The header menu still has everything else.
    page.get_by_role("navigation", name="Main").get_by_text("Menu").click()
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="My timecard")) \
        .to_be_visible()
    # Nothing hides behind the bar: the page's last words scroll clear of it.
    footer = page.get_by_role("contentinfo")
    footer.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    text = footer.get_by_text(re.compile("time zone")).bounding_box()
    bar = tabs.bounding_box()
    assert text is not None
    assert bar is not None
    assert text["y"] + text["height"] <= bar["y"]


def test_wide_screen_has_no_tabs_and_the_normal_menu(tab):
    tab.sign_in("provider@example.com")
    expect(tab.page.get_by_role("navigation", name="Shortcuts")).to_be_hidden()
    expect(tab.page.get_by_role("navigation", name="Main").get_by_role("link", name="Clock")) \
        .to_be_visible()


def test_manager_counts_link_to_the_work(tab):
    tab.sign_in("manager@example.com")
    page = tab.page
    waiting = page.get_by_role("region", name="Waiting for you")
    expect(waiting.get_by_role("link")).to_have_count(3)
    tab.click(waiting.get_by_role("link", name=re.compile(r"^\d+ requests? waiting$")))
    assert tab.path() == "/manage/time-off?status=pending"
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    tab.goto("/")
    tab.click(page.get_by_role("link", name=re.compile(r"^\d+ punch(es)? to review$")))
    assert tab.path() == "/manage/timesheets"
    tab.goto("/")
    tab.click(page.get_by_role("link", name=re.compile(r"^\d+ open shifts? today$")))
    assert tab.path() == "/manage/schedule"


def test_scheduler_sees_todays_appointments_and_opens_one(tab):
    begin = now() + timedelta(minutes=3)

    def book(session):
        appointment = m.Appointment(
            type="Follow-up", appointment_type_id=uid("atype:follow"), status="upcoming",
            provider_id=uid("user:doctor@example.com"), member_id="member-today",
            start_date=begin, end_date=begin + timedelta(minutes=15), location="Room 7")
        session.add(appointment)
        session.flush()
        return appointment.id

    booked = arrange(tab.site, book)
    tab.sign_in("scheduler@example.com")
    today = tab.page.get_by_role("region", name="Today's appointments")
    link = today.get_by_role("link", name=re.compile("Follow-up · member-today"))
    tab.click(link)
    assert tab.path() == f"/appointments/{booked}"
    expect(tab.page.get_by_text("member-today").first).to_be_visible()
