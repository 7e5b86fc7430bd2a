"""Two managers edit the same shift on the team schedule; the second sees the version conflict."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from app.api.models import Shift
from tests.browser.manager.conftest import (
    add_shift,
    shift_row,
)

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

MONDAY = "2027-02-01"


def _start(day: int) -> datetime:
    return datetime(2027, 2, day, 12, 0, tzinfo=UTC)  # 7:00 AM in New York


def change_note(session, shift_id, note: str) -> None:
    """Someone else's edit: a new note, the version raised as every update raises it."""
    shift = session.get(Shift, shift_id)
    shift.note = note


def editor(tab):
    return tab.page.get_by_role("region", name="Shift editor")


def _open_editor(tab, shift_id) -> None:
    tab.goto(f"/manage/schedule?week={MONDAY}")
    tab.click(tab.page.locator(f"#shift-{shift_id}"))
    expect(tab.page.get_by_role("button", name="Save shift")).to_be_visible()


@pytest.mark.split_mode
@pytest.mark.parametrize("resolution", ["reload", "apply"])
def test_second_editor_sees_the_version_conflict(site, tab, second_tab, arrange, artifacts,
                                                 resolution):
    if site.mode == "split" and resolution == "reload":
        pytest.skip("one resolution is enough to prove the split mode")
    shift_id = arrange(lambda s: add_shift(s, start=_start(2 if resolution == "reload" else 3),
                                           provider="ed.nurse1@example.com"))
    other = second_tab
    for t in (tab, other):
        t.sign_in("manager@example.com", start=f"/manage/schedule?week={MONDAY}")
        _open_editor(t, shift_id)
    editor(other).get_by_label("Note for the provider").fill("Charge on pod C")
    other.click(other.page.get_by_role("button", name="Save shift"))
    expect(other.page.locator("#messages")).to_contain_text("Saved")
    editor(tab).get_by_label("Ends").fill("17:00")
    tab.click(tab.page.get_by_role("button", name="Save shift"))
    conflict = tab.page.get_by_role("alert").filter(has_text="Someone else changed")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("Charge on pod C")
    expect(conflict).to_contain_text("5:00 PM")
    tab.page.screenshot(path=artifacts / f"manager-conflict-{resolution}-{site.mode}.png",
                        full_page=True, caret="initial")
    if resolution == "reload":
        tab.click(tab.page.get_by_role("button", name="Reload"))
        expect(editor(tab).get_by_label("Note for the provider")).to_have_value(
            "Charge on pod C")
        expect(editor(tab).get_by_label("Ends")).to_have_value("19:00")
        row = shift_row(site, shift_id)
        assert row.note == "Charge on pod C"
    else:
        tab.click(tab.page.get_by_role("button",
                                       name="Apply my change to the latest version"))
        expect(tab.page.locator("#messages")).to_contain_text("Saved")
        chip = tab.page.locator(f"#shift-{shift_id}")
        expect(chip).to_contain_text("5:00 PM")
        row = shift_row(site, shift_id)
        assert row.note == "Charge on pod C"


def test_conflict_resolves_without_javascript(site, browser, no_js_tab, arrange):
    if site.mode == "split":
        pytest.skip("no-JS journeys run in embedded mode")
    shift_id = arrange(lambda s: add_shift(s, start=_start(4), provider="ed.nurse2@example.com"))
    tab = no_js_tab
    tab.sign_in("manager@example.com", start=f"/manage/schedule?week={MONDAY}")
    _open_editor(tab, shift_id)
    arrange(lambda s: change_note(s, shift_id, "Changed elsewhere"))
    editor(tab).get_by_label("Starts").fill("08:00")
    tab.click(tab.page.get_by_role("button", name="Save shift"))
    expect(tab.page.get_by_text("Someone else changed this shift")).to_be_visible()
    tab.click(tab.page.get_by_role("button", name="Apply my change to the latest version"))
    expect(tab.page.locator("#messages")).to_contain_text("Saved")
    row = shift_row(site, shift_id)
    assert row.note == "Changed elsewhere"
    assert row.start_date.replace(tzinfo=UTC).hour == 13


def test_post_an_open_shift(site, tab):
    if site.mode == "split":
        pytest.skip("covered in embedded mode")
    tab.sign_in("manager@example.com", start=f"/manage/schedule?week={MONDAY}")
    tab.goto(f"/manage/schedule?week={MONDAY}")
    tab.click(tab.page.get_by_role("link", name="New shift", exact=True))
    form = tab.page.locator("#new-shift")
    form.get_by_label("Date").fill("2027-02-05")
    form.get_by_label("Starts").fill("09:00")
    form.get_by_label("Ends").fill("17:00")
    expect(form.get_by_label("Provider", exact=True)).to_have_value("")  # open by default
    form.get_by_label("Main role").select_option(label="Registered Nurse")
    form.get_by_label("Note for the provider").fill("Flu season cover")
    tab.click(form.get_by_role("button", name="Add shift"))
    expect(tab.page.locator("#messages")).to_contain_text("Open shift posted")
    row = tab.page.get_by_role("row", name="Open shifts")
    expect(row).to_contain_text("9:00 AM")


def test_post_an_open_shift_asks_for_a_role_first(site, tab):
    if site.mode == "split":
        pytest.skip("covered in embedded mode")
    tab.sign_in("manager@example.com", start=f"/manage/schedule?week={MONDAY}")
    tab.click(tab.page.get_by_role("link", name="New shift", exact=True))
    form = tab.page.locator("#new-shift")
    expect(form.get_by_label("Main role")).to_have_value("")
    form.get_by_label("Date").fill("2027-02-06")
    tab.click(form.get_by_role("button", name="Add shift"))
    expect(form.get_by_role("alert")).to_contain_text("Choose a role.")


# -- the phone's day view and warned saves (issue 25) ---------------------------------------------

PHONE_DAY = "2027-03-02"  # a Tuesday


def _march(day: int, hour: int = 12) -> datetime:
    return datetime(2027, 3, day, hour, 0, tzinfo=UTC)  # hour 12 is 7:00 AM in New York


def _fits_the_screen(tab) -> None:
    width = tab.page.evaluate("document.documentElement.scrollWidth")
    assert width <= tab.page.viewport_size["width"], f"the page is {width} px wide"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_phone_shows_one_day_and_confirms_a_24_hour_shift(site, phones, arrange, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    day = 2 if javascript else 3
    shift_id = arrange(lambda s: add_shift(s, start=_march(day), provider="ed.nurse1@example.com"))
    arrange(lambda s: add_shift(s, start=_march(day + 1), provider="ed.nurse2@example.com"))
    tab = phones(javascript=javascript)
    start = f"/manage/schedule?day=2027-03-0{day - 1}"
    tab.sign_in("manager@example.com", start=start)
    page = tab.page
    # A phone gets the day, not the week grid: the day before, then the next day's cards.
    expect(page.get_by_role("heading", level=2).first).to_contain_text(f"{day - 1} Mar")
    expect(page.get_by_role("table")).to_be_hidden()
    _fits_the_screen(tab)
    tab.click(page.get_by_role("link", name="Next day"))
    expect(page.get_by_role("heading", level=2).first).to_contain_text(f"{day} Mar")
    card = page.locator(f"#shift-{shift_id}")
    expect(card).to_contain_text("7:00 AM")
    expect(card).to_contain_text("Registered Nurse")
    box = card.bounding_box()
    assert box is not None
    assert box["y"] < 844, "the first shift shows on the first screen"
    _fits_the_screen(tab)
    tab.click(card.get_by_role("link", name="Edit"))
    editor_box = editor(tab)
    expect(editor_box).to_be_visible()
    expect(card.get_by_role("region", name="Shift editor")).to_be_visible()
    expect(editor_box).to_be_in_viewport()
    _fits_the_screen(tab)
    editor_box.get_by_label("Ends").fill("07:00")
    tab.click(editor_box.get_by_role("button", name="Save shift"))
    warning = editor(tab).get_by_role("alert")
    expect(warning).to_contain_text("This shift is")
    expect(warning).to_be_in_viewport()
    row = shift_row(site, shift_id)
    assert row.end_date.replace(tzinfo=UTC) == _march(day + 1, 0)  # not saved yet
    tab.click(editor(tab).get_by_role("button", name="Save anyway"))
    expect(page.locator("#messages")).to_contain_text("Saved")
    row = shift_row(site, shift_id)
    assert row.end_date.replace(tzinfo=UTC) == _march(day + 1)
    expect(page.locator(f"#shift-{shift_id}")).to_contain_text("+1")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_wide_screen_shows_the_week_and_opens_the_editor_next_to_the_shift(
        site, browser, tab, no_js_tab, arrange, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    day = 10 if javascript else 11
    shift_id = arrange(lambda s: add_shift(s, start=_march(day), provider="ed.nurse2@example.com"))
    tab = tab if javascript else no_js_tab
    tab.sign_in("manager@example.com", start="/manage/schedule?week=2027-03-08")
    page = tab.page
    expect(page.get_by_role("table")).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile("Mar"), level=2)).to_be_hidden()
    chip = page.locator(f"#shift-{shift_id}")
    tab.click(chip)
    expect(editor(tab)).to_be_visible()
    expect(editor(tab)).to_be_in_viewport()
    expect(page.locator(f"#shift-{shift_id}")).to_be_in_viewport()
    chip_box = page.locator(f"#shift-{shift_id}").bounding_box()
    editor_box = editor(tab).bounding_box()
    assert chip_box is not None
    assert editor_box is not None
    assert 0 <= editor_box["y"] - (chip_box["y"] + chip_box["height"]) < 200, \
        "the editor opens right under the shift"
