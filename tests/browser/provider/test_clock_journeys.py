"""Clock journeys: a whole shift of punches, a double click, two tabs, the far-from-shift
confirmation, with and without JavaScript, and the page on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.provider.conftest import account, hours, now, shift

pytestmark = pytest.mark.xdist_group("browser-provider")

ACTIONS = ["Clock in", "Start break", "End break", "Clock out"]


def _buttons(page):
    return page.get_by_role("main").get_by_role("button", name=re.compile(
        r"^(Clock in|Start break|End break|Clock out)$"))


def _press(tab, name: str) -> None:
    tab.click(tab.page.get_by_role("button", name=name, exact=True))


def _expect_buttons(page, names: list[str]) -> None:
    expect(_buttons(page)).to_have_text(names)


def _a_whole_shift(tab) -> None:
    page = tab.page
    _expect_buttons(page, ["Clock in"])
    _press(tab, "Clock in")
    _expect_buttons(page, ["Start break", "Clock out"])
    expect(page.get_by_role("heading", name=re.compile("You are clocked in"))).to_be_visible()
    page.get_by_label("Note (optional)").fill("Covering pod B")
    page.get_by_label("Note (optional)").press("Enter")  # records nothing: no default action
    tab.settle()
    _expect_buttons(page, ["Start break", "Clock out"])
    _press(tab, "Start break")
    _expect_buttons(page, ["End break"])
    expect(page.get_by_role("heading", name=re.compile("You are on a break"))).to_be_visible()
    _press(tab, "End break")
    _expect_buttons(page, ["Start break", "Clock out"])
    _press(tab, "Clock out")
    _expect_buttons(page, ["Clock in"])
    today = page.get_by_role("region", name="Today's punches")
    expect(today.get_by_role("listitem")).to_have_count(4)
    expect(today).to_contain_text("Covering pod B")
    tab.click(page.get_by_role("link", name="See your whole timecard"))
    expect(page.get_by_role("heading", level=1)).to_have_text("My timecard")
    shifts = page.get_by_role("main").get_by_role("article")  # one row per shift worked
    expect(shifts).to_have_count(1)
    expect(shifts.first).to_contain_text("Pending review")


@pytest.mark.split_mode
@pytest.mark.scaled_mode
def test_provider_clocks_a_whole_shift(tab):
    shift(tab.site, "provider@example.com", start=now() - hours(0.02))
    tab.sign_in("provider@example.com", start="/clock")
    expect(tab.page.get_by_role("heading", name="Your shift now")).to_be_visible()
    _a_whole_shift(tab)


def test_whole_shift_without_javascript(site, no_js_tab):
    if site.mode == "split":
        pytest.skip("no-JS journeys run on the embedded server; the markup is the same")
    email = account(site, "Nojs Nurse")
    shift(site, email, start=now() - hours(0.02))
    no_js_tab.sign_in(email, start="/clock")
    _a_whole_shift(no_js_tab)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_double_click_records_one_punch(site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    email = account(site, "Double Click")
    shift(site, email, start=now() - hours(0.02))
    browse.sign_in(email, start="/clock")
    browse.page.get_by_role("button", name="Clock in", exact=True).dblclick()
    browse.settle()
    _expect_buttons(browse.page, ["Start break", "Clock out"])
    today = browse.page.get_by_role("region", name="Today's punches")
    expect(today.get_by_role("listitem")).to_have_count(1)
    browse.goto("/timecard")
    shifts = browse.page.get_by_role("main").get_by_role("article")
    expect(shifts).to_have_count(1)
    expect(shifts.first).to_contain_text("Pending review")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_second_tab_then_first_shows_problem_and_recovers(site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    first = tab if javascript else no_js_tab
    email = account(site, "Two Tabs")
    shift(site, email, start=now() - hours(0.02))
    first.sign_in(email, start="/clock")
    _expect_buttons(first.page, ["Clock in"])
    other = first.context.new_page()  # same browser, same session: a second tab
    other.goto(first.site.url + "/clock")
    other.get_by_role("button", name="Clock in", exact=True).click()
    expect(other.get_by_role("button", name="Start break", exact=True)).to_be_visible()
    other.get_by_role("button", name="Start break", exact=True).click()
    expect(other.get_by_role("button", name="End break", exact=True)).to_be_visible()
    other.close()

    _press(first, "Clock in")
    problem = first.page.get_by_role("alert")
    expect(problem).to_contain_text("Your timecard changed since this page was loaded")
    expect(problem).to_contain_text("break started at")
    _expect_buttons(first.page, ["End break"])
    _press(first, "End break")
    expect(first.page.get_by_role("alert")).to_have_count(0)
    _expect_buttons(first.page, ["Start break", "Clock out"])


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_clock_in_far_from_shift_asks_first(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Early Bird")
    shift(site, email, start=now() + hours(1.5))
    browse.sign_in(email, start="/clock")
    expect(browse.page.get_by_role("heading", name="Your next shift")).to_be_visible()
    _press(browse, "Clock in")
    warning = browse.page.get_by_role("alert")
    expect(warning).to_contain_text("Check before you clock in.")
    expect(warning).to_contain_text("will be marked early")
    _expect_buttons(browse.page, [])
    browse.click(browse.page.get_by_role("button", name="Clock in anyway"))
    _expect_buttons(browse.page, ["Start break", "Clock out"])


def test_clock_page_on_a_phone(site, phone, artifacts):
    if site.mode == "split":
        pytest.skip("one phone screenshot is enough; the markup is the same")
    email = account(site, "Phone Nurse")
    shift(site, email, start=now() - hours(0.02), note="Charge nurse today")
    phone.sign_in(email, start="/clock")
    _press(phone, "Clock in")
    _expect_buttons(phone.page, ["Start break", "Clock out"])
    box = phone.page.get_by_role("button", name="Clock out").bounding_box()
    assert box is not None
    assert box["width"] >= 300
    assert box["height"] >= 48
    phone.page.screenshot(path=str(artifacts / "provider-clock-phone.png"), full_page=True)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_clock_out_sums_up_and_undo_clocks_in_again(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("the Now journeys run it on both servers; the panel is the same")
    browse = tab if javascript else no_js_tab
    email = account(site, "Undo Nurse")
    shift(site, email, start=now() - hours(0.02))
    browse.sign_in(email, start="/clock")
    _press(browse, "Clock in")
    _press(browse, "Clock out")
    _expect_buttons(browse.page, ["Clock in"])
    ended = browse.page.get_by_role("region", name=re.compile("^Shift ended at"))
    expect(ended).to_contain_text("Clocked in on time")
    expect(ended).to_contain_text("You can undo until")
    browse.click(ended.get_by_role("button", name="Undo clock-out"))
    _expect_buttons(browse.page, ["Start break", "Clock out"])
    expect(browse.page.get_by_role("status")).to_contain_text("Clock-out undone.")
    today = browse.page.get_by_role("region", name="Today's punches")
    expect(today.get_by_role("listitem")).to_have_count(1)
    assert browse.path() == "/clock"
