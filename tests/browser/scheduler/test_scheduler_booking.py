"""Journeys of a scheduler on the phone with a patient, as scheduler@example.com: search, book,
find the booking, reschedule and cancel it; keyboard only; without JavaScript; skills."""

from __future__ import annotations

import re
from datetime import date

import pytest

from tests.browser.scheduler.conftest import next_week_wednesday

pytestmark = pytest.mark.xdist_group("browser-scheduler")
expect = pytest.importorskip("playwright.sync_api").expect

EMAIL = "scheduler@example.com"


def search_for(tab, setup, first: date, last: date | None = None) -> None:
    """Fill the search form: the test's type and its days."""
    page = tab.page
    page.get_by_label("Appointment type").select_option(label=f"{setup.type_name} (30m)")
    page.get_by_label("Choose dates").check()
    page.get_by_label("From", exact=True).fill(first.isoformat())
    page.get_by_label("To", exact=True).fill((last or first).isoformat())
    if not tab.javascript:
        tab.click(page.get_by_role("button", name="Search"))
    tab.settle()


@pytest.mark.split_mode
@pytest.mark.scaled_mode
def test_search_book_find_reschedule_cancel(site, tab, arrange, artifacts):
    key = f"journey{site.mode}"
    setup = arrange(key, date(2027, 2, 2 if site.mode == "embedded" else 3))
    page = tab.page
    tab.sign_in(EMAIL)
    tab.click(page.get_by_role("navigation", name="Main").get_by_role("link", name="Find a slot"))
    search_for(tab, setup, setup.day)
    results = page.locator("#slot-results")
    day_heading = re.compile(r"Tue 2 Feb 2027|Wed 3 Feb 2027")
    expect(results.get_by_role("heading", level=3, name=day_heading)).to_be_visible()
    expect(results).to_contain_text("Sched " + key.title())
    expect(results).to_contain_text("Best match")
    expect(page).to_have_url(re.compile(f"type={setup.type_id}"))  # kept in the address
    page.screenshot(path=artifacts / f"scheduler-search-{site.mode}.png", full_page=True)

    tab.click(results.get_by_role("link", name=re.compile(r"^Book 9:00 AM with .* \(rank 1\)")))
    expect(page.get_by_role("heading", name="Book a slot")).to_be_visible()
    expect(page.get_by_label("Member id")).to_be_focused()
    page.get_by_label("Member id").fill(f"M-{key}")
    page.get_by_label("Location").fill("Room 12")
    tab.click(page.get_by_role("button", name="Confirm booking"))
    expect(page.get_by_role("status")).to_contain_text(f"Booked: {setup.type_name}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(setup.type_name)
    expect(page.get_by_text("Room 12")).to_be_visible()
    page.screenshot(path=artifacts / f"scheduler-booked-{site.mode}.png", full_page=True)

    tab.click(page.get_by_role("navigation", name="Main").get_by_role("link", name="Appointments"))
    page.get_by_text("Filter", exact=True).click()  # the filters fold away under "Filter"
    page.get_by_label("Member id").fill(f"M-{key}")
    if not tab.javascript:
        tab.click(page.get_by_role("button", name="Show appointments"))
    expect(page).to_have_url(re.compile(f"member=M-{key}"))  # the filters are kept in the URL
    tab.settle()
    expect(page.get_by_role("list", name="Active filters").get_by_role("link", name=re.compile(
        f"^Member id: M-{key}"))).to_be_visible()
    rows = page.get_by_role("list", name="Matching appointments").get_by_role("listitem")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(setup.type_name)

    tab.click(rows.first.get_by_role("link"))
    tab.click(page.get_by_role("link", name="Reschedule"))
    page.get_by_label("Day").fill(setup.day.isoformat())
    page.get_by_label("Start", exact=True).fill("14:00")
    tab.click(page.get_by_role("button", name="Move to these times"))
    expect(page.get_by_role("status")).to_contain_text("Rescheduled to")
    expect(page.get_by_role("status")).to_contain_text("2:00 PM")

    tab.click(page.get_by_role("link", name="Cancel appointment"))
    tab.click(page.get_by_role("button", name="Cancel appointment"))
    expect(page.get_by_role("alert")).to_contain_text("Say why it is cancelled.")
    page.get_by_label("Reason").fill("Member moved away")
    tab.click(page.get_by_role("button", name="Cancel appointment"))
    expect(page.get_by_role("status")).to_contain_text("Appointment cancelled.")
    expect(page.get_by_text("Member moved away")).to_be_visible()


def test_reschedule_to_a_free_slot(site, tab, arrange, book):
    if site.mode == "split":
        pytest.skip("the slot journey above proves the split mode")
    day = next_week_wednesday()
    setup = arrange("moveslot", day)
    from tests.browser.scheduler.conftest import local

    appointment = book(setup, "Sched Moveslot", local(day, 9), "M-move")
    tab.sign_in(EMAIL, start=f"/appointments/{appointment}/reschedule?range=next-week")
    page = tab.page
    expect(page.get_by_role("heading", name="Free slots with Sched Moveslot")).to_be_visible()
    tab.click(page.get_by_role("button", name=re.compile(r"Move here.*10:00 AM")))
    expect(page.get_by_role("status")).to_contain_text("Rescheduled to")
    expect(page.get_by_role("status")).to_contain_text("10:00 AM")


def test_keyboard_only_booking(site, tab, arrange):
    if site.mode == "split":
        pytest.skip("keyboard use does not depend on the mode")
    setup = arrange("keys", next_week_wednesday())
    tab.sign_in(EMAIL, start="/slots")
    page = tab.page
    expect(page.get_by_label("Appointment type")).to_be_focused()
    page.keyboard.type(setup.type_name)
    page.keyboard.press("Tab")  # to the "When" radios (This week is checked)
    expect(page.get_by_label("This week")).to_be_focused()
    page.keyboard.press("ArrowRight")  # → Next week
    expect(page.get_by_label("Next week")).to_be_checked()
    tab.settle()
    book = page.get_by_role("link", name=re.compile(r"^Book 9:00 AM with Sched Keys"))
    expect(book).to_be_visible()
    for _ in range(30):
        if book.evaluate("element => element === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(book).to_be_focused()
    page.keyboard.press("Enter")
    tab.settle()
    expect(page.get_by_label("Member id")).to_be_focused()
    page.keyboard.type("M-keys")
    page.keyboard.press("Tab")
    page.keyboard.type("Telehealth")
    page.keyboard.press("Enter")
    tab.settle()
    expect(page.get_by_role("status")).to_contain_text("Booked: Visit keys")
    expect(page.get_by_text("Telehealth")).to_be_visible()


def test_booking_without_javascript(site, no_js_tab, arrange):
    if site.mode == "split":
        pytest.skip("no-JS journeys run in the embedded mode")
    tab = no_js_tab
    setup = arrange("nojs", date(2027, 2, 4))
    tab.sign_in(EMAIL, start="/slots")
    page = tab.page
    search_for(tab, setup, setup.day)
    tab.click(page.get_by_role("link", name=re.compile(r"^Book 9:00 AM with Sched Nojs")))
    page.get_by_label("Member id").fill("M-nojs")
    page.get_by_label("Location").fill("Room 3")
    tab.click(page.get_by_role("button", name="Confirm booking"))
    expect(page.get_by_role("status")).to_contain_text("Booked: Visit nojs")
    tab.click(page.get_by_role("link", name="Cancel appointment"))
    page.get_by_label("Reason").fill("Booked by mistake")
    tab.click(page.get_by_role("button", name="Cancel appointment"))
    expect(page.get_by_role("status")).to_contain_text("Appointment cancelled.")


def test_a_slot_taken_meanwhile_is_explained(site, tab, arrange, book):
    if site.mode == "split":
        pytest.skip("the booking journey proves the split mode")
    setup = arrange("taken", date(2027, 2, 5))
    tab.sign_in(EMAIL, start="/slots")
    page = tab.page
    search_for(tab, setup, setup.day)
    tab.click(page.get_by_role("link", name=re.compile(r"^Book 9:00 AM with Sched Taken")))
    from tests.browser.scheduler.conftest import local

    book(setup, "Sched Taken", local(setup.day, 9), "M-other")  # someone else, meanwhile
    page.get_by_label("Member id").fill("M-late")
    page.get_by_label("Location").fill("Room 5")
    tab.click(page.get_by_role("button", name="Confirm booking"))
    expect(page.get_by_role("alert")).to_contain_text("Someone else just took that slot")
    results = page.locator("#slot-results")
    expect(results.get_by_role("link", name=re.compile(r"^Book 9:30 AM with Sched Taken")))\
        .to_be_visible()
    expect(results.get_by_role("link", name=re.compile(r"^Book 9:00 AM"))).to_have_count(0)


def test_a_skill_requirement_narrows_the_results(site, tab, arrange):
    if site.mode == "split":
        pytest.skip("filters do not depend on the mode")
    setup = arrange("skills", date(2027, 2, 8), {
        "Sched Signer": {"language": ["ASL-skills"]}, "Sched Plain": {}})
    tab.sign_in(EMAIL, start="/slots")
    page = tab.page
    search_for(tab, setup, setup.day)
    results = page.locator("#slot-results")
    expect(results).to_contain_text("Sched Plain")
    expect(results).to_contain_text("Sched Signer")
    page.get_by_text("Filter: providers and skills").click()
    required = page.get_by_role("group", name="Required skills (all of them)")
    required.get_by_label("language: ASL-skills").check()
    tab.settle()
    expect(results).not_to_contain_text("Sched Plain")
    expect(results).to_contain_text("Sched Signer")
    tab.audit()
    expect(results.get_by_role("link", name=re.compile(
        "^Required skills \\(all of them\\): language: ASL-skills"))).to_be_visible()
    required.get_by_label("language: ASL-skills").uncheck()
    required.get_by_label("badge: skills").check()
    page.get_by_label("From", exact=True).fill("2027-02-09")
    page.get_by_label("To", exact=True).fill("2027-02-09")
    tab.settle()
    expect(results).to_contain_text("No free slots in this window.")
    expect(results).to_contain_text("has a shift in this window")
    tab.audit()


def test_search_and_book_on_a_phone(site, phone, arrange, artifacts):
    if site.mode == "split":
        pytest.skip("phone layouts do not depend on the mode")
    setup = arrange("phone", date(2027, 2, 16))
    day = setup.day.isoformat()
    phone.sign_in(EMAIL, start=f"/slots?type={setup.type_id}&range=dates&start={day}&end={day}")
    page = phone.page
    book = page.get_by_role("link", name=re.compile(r"^Book 9:00 AM with Sched Phone"))
    expect(book).to_be_visible()
    page.screenshot(path=artifacts / "scheduler-search-phone.png", full_page=True)
    box = book.bounding_box()
    assert box is not None
    assert box["height"] >= 24  # a target a thumb can hit (WCAG 2.2 target size)
    phone.click(book)
    page.get_by_label("Member id").fill("M-phone")
    page.get_by_label("Location").fill("Room 7")
    phone.click(page.get_by_role("button", name="Confirm booking"))
    expect(page.get_by_role("status")).to_contain_text("Booked: Visit phone")
