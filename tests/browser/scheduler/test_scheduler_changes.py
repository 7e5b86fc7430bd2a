"""Two schedulers change the same appointment; appointment types are kept up to date. As
scheduler@example.com."""

from __future__ import annotations

import re
from datetime import date

import pytest

from tests.browser.scheduler.conftest import local, type_card

pytestmark = pytest.mark.xdist_group("browser-scheduler")
expect = pytest.importorskip("playwright.sync_api").expect

EMAIL = "scheduler@example.com"


def move(tab, day: date, start: str) -> None:
    page = tab.page
    page.get_by_label("Day").fill(day.isoformat())
    page.get_by_label("Start", exact=True).fill(start)
    tab.click(page.get_by_role("button", name="Move to these times"))


def test_two_schedulers_reschedule_the_same_appointment(site, tab, second_tab, arrange, book,
                                                        artifacts):
    day = date(2027, 2, 10 if site.mode == "embedded" else 11)
    setup = arrange(f"clash{site.mode}", day)
    appointment = book(setup, next(iter(setup.providers)), local(day, 9), "M-clash")
    path = f"/appointments/{appointment}/reschedule"
    tab.sign_in(EMAIL, start=path)
    second_tab.sign_in(EMAIL, start=path)

    # Way 1: the second scheduler reloads and sees the first one's change.
    move(tab, day, "11:00")
    expect(tab.page.get_by_role("status")).to_contain_text("Rescheduled to")
    move(second_tab, day, "13:00")
    page = second_tab.page
    expect(page.get_by_role("heading", name="Someone else changed this appointment")) \
        .to_be_visible()
    changes = page.get_by_role("table", name="What changed since you opened it")
    expect(changes.get_by_role("row", name=re.compile("Starts"))).to_contain_text("9:00 AM")
    expect(changes.get_by_role("row", name=re.compile("Starts"))).to_contain_text("11:00 AM")
    expect(page.get_by_text("Your change: Move it to")).to_contain_text("1:00 PM")
    page.screenshot(path=artifacts / f"scheduler-conflict-{site.mode}.png", full_page=True)
    second_tab.click(page.get_by_role("link", name="Reload the latest version"))
    expect(page.get_by_role("main")).to_contain_text("11:00 AM")

    # Way 2: both open it again; the second applies their change to the latest version.
    tab.goto(path)
    second_tab.goto(path)
    move(tab, day, "12:00")
    expect(tab.page.get_by_role("status")).to_contain_text("12:00 PM")
    move(second_tab, day, "15:00")
    expect(page.get_by_role("heading", name="Someone else changed this appointment")) \
        .to_be_visible()
    second_tab.click(page.get_by_role("button", name="Apply my change to the latest version"))
    expect(page.get_by_role("status")).to_contain_text("Rescheduled to")
    expect(page.get_by_role("status")).to_contain_text("3:00 PM")


def test_conflict_without_javascript(site, no_js_tab, second_tab, arrange, book):
    if site.mode == "split":
        pytest.skip("no-JS journeys run in the embedded mode")
    day = date(2027, 2, 12)
    setup = arrange("clashnojs", day)
    appointment = book(setup, next(iter(setup.providers)), local(day, 9), "M-nojs")
    no_js_tab.sign_in(EMAIL, start=f"/appointments/{appointment}/cancel")
    second_tab.sign_in(EMAIL, start=f"/appointments/{appointment}/reschedule")
    move(second_tab, day, "10:00")
    page = no_js_tab.page
    page.get_by_label("Reason").fill("Member asked")
    no_js_tab.click(page.get_by_role("button", name="Cancel appointment"))
    expect(page.get_by_role("heading", name="Someone else changed this appointment")) \
        .to_be_visible()
    no_js_tab.click(page.get_by_role("button", name="Apply my change to the latest version"))
    expect(page.get_by_role("status")).to_contain_text("Appointment cancelled.")
    expect(page.get_by_text("Member asked")).to_be_visible()


def test_appointment_types_create_edit_archive(site, tab, arrange, artifacts):
    if site.mode == "split":
        pytest.skip("the type pages do not depend on the mode")
    arrange("typesx", date(2027, 2, 15), {"Sched Typist": {"language": ["Tagalog"]}})
    tab.sign_in(EMAIL, start="/appointment-types")
    page = tab.page
    tab.click(page.get_by_role("link", name="New appointment type"))
    page.get_by_label("Name").fill("T")
    page.get_by_label("Length in minutes").fill("3")
    tab.click(page.get_by_role("button", name="Create appointment type"))
    expect(page.get_by_role("alert")).to_be_visible()
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Length in minutes")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Name").fill("Tagalog consult")
    page.get_by_label("Length in minutes").fill("45")
    page.get_by_role("group", name="Group 1: any of").get_by_label("language: Tagalog").check()
    page.screenshot(path=artifacts / "scheduler-type-form.png", full_page=True)
    tab.click(page.get_by_role("button", name="Create appointment type"))
    expect(page.get_by_role("status")).to_contain_text("“Tagalog consult” created")
    row = type_card(page, "Tagalog consult")
    expect(row).to_contain_text("language: Tagalog")
    expect(row).to_contain_text("45m")

    tab.click(row.get_by_role("link", name="Edit Tagalog consult"))
    group = page.get_by_role("group", name="Group 1: any of")
    expect(group.get_by_label("language: Tagalog")).to_be_checked()
    expect(group.get_by_role("checkbox", checked=True)).to_have_count(1)
    page.get_by_label("Length in minutes").fill("50")
    tab.click(page.get_by_role("button", name="Save appointment type"))
    expect(type_card(page, "Tagalog consult")).to_contain_text("50m")

    tab.goto("/slots")
    expect(page.get_by_label("Appointment type").get_by_role("option", name=re.compile(
        "Tagalog consult"))).to_have_count(1)
    tab.goto("/appointment-types")
    tab.click(type_card(page, "Tagalog consult")
              .get_by_role("link", name="Archive Tagalog consult"))
    tab.click(page.get_by_role("button", name="Archive appointment type"))
    expect(page.get_by_role("status")).to_contain_text("archived")
    expect(type_card(page, "Tagalog consult")).to_have_count(0)
    tab.goto("/slots")
    expect(page.get_by_label("Appointment type").get_by_role("option", name=re.compile(
        "Tagalog consult"))).to_have_count(0)


def test_mark_no_show_then_occurred_with_actual_times(site, tab, arrange, book):
    if site.mode == "split":
        pytest.skip("outcomes do not depend on the mode")
    day = date(2026, 11, 2)  # in the past: the outcome form is open
    setup = arrange("outcome", day)
    appointment = book(setup, next(iter(setup.providers)), local(day, 10), "M-outcome")
    tab.sign_in(EMAIL, start=f"/appointments/{appointment}")
    page = tab.page
    page.get_by_label("Outcome").select_option("no-show")
    page.get_by_label("Actual start").fill("")
    page.get_by_label("Actual end").fill("")
    tab.click(page.get_by_role("button", name="Save outcome"))
    expect(page.get_by_role("status")).to_contain_text("Marked a no-show.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("No-show")
    page.get_by_label("Outcome").select_option("occurred")
    page.get_by_label("Actual start").fill("10:10")
    page.get_by_label("Actual end").fill("10:45")
    tab.click(page.get_by_role("button", name="Save outcome"))
    expect(page.get_by_role("status")).to_contain_text("Marked occurred.")
    expect(page.get_by_role("main")).to_contain_text("10:45 AM")
