"""The shift form on the team schedule in a browser, with JavaScript and without, on a 390 px
phone and a 1280 px screen: create a shift with segments, edit its segments, labels, pay code
and note, mark a callout, delete it after confirming, and a version conflict on a segment edit.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from app.api.models import Shift
from tests.browser.manager.conftest import add_shift, shift_row
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

JS = pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])


def _april(day: int, hour: int = 7, minute: int = 0) -> datetime:
    """An April 2027 New York wall time (EDT) as UTC."""
    return datetime(2027, 4, day, hour + 4, minute, tzinfo=UTC)


def _fits_the_screen(tab) -> None:
    width = tab.page.evaluate("document.documentElement.scrollWidth")
    assert width <= tab.page.viewport_size["width"], f"the page is {width} px wide"


def _segments(site, shift_id):
    row = shift_row(site, shift_id)
    with site.api.extensions["shiftdesk"].db.unit_of_work() as session:
        shift = session.get(Shift, shift_id)
        found = [(s.type, s.start_date.replace(tzinfo=UTC), s.end_date.replace(tzinfo=UTC),
                  sorted(label.name for label in s.labels))
                 for s in sorted(shift.segments, key=lambda s: s.start_date)]
        pay = [p.pay_code_id for p in shift.pay_codes]
    return row, found, pay


def _skip_split(site, javascript=True):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")


def _segment(form, number):
    return form.get_by_role("group", name=f"Segment {number}", exact=True)


def _fill_segment(form, number, kind, start, end, labels=()):
    row = _segment(form, number)
    row.get_by_label("Type").select_option(label=kind)
    row.get_by_label("From").fill(start)
    row.get_by_label("To").fill(end)
    for label in labels:
        row.get_by_label(label).check()


@JS
def test_create_a_shift_with_segments_on_a_phone(site, phones, javascript):
    _skip_split(site, javascript)
    if site.mode == "split":
        pytest.skip("covered in embedded mode")
    day = 5 if javascript else 6
    tab = phones(javascript=javascript)
    tab.sign_in("manager@example.com", start=f"/manage/schedule?day=2027-04-0{day}")
    page = tab.page
    tab.click(page.get_by_role("link", name="New shift on this day"))
    form = page.get_by_role("region", name="New shift in Emergency")
    expect(form).to_be_visible()
    _fits_the_screen(tab)
    expect(form.get_by_label("Date")).to_have_value(f"2027-04-0{day}")
    form.get_by_label("Provider", exact=True).select_option(label="Ed Nurse 1")
    form.get_by_label("Main role").select_option(label="Registered Nurse")
    _fill_segment(form, 1, "Working", "07:00", "12:00", ["Charge nurse"])
    tab.click(form.get_by_role("button", name="Add another segment"))
    form = page.get_by_role("region", name="New shift in Emergency")
    expect(_segment(form, 2)).to_be_visible()
    expect(_segment(form, 1).get_by_label("To")).to_have_value("12:00")  # nothing lost
    expect(_segment(form, 1).get_by_label("Charge nurse")).to_be_checked()
    _fill_segment(form, 2, "Unpaid break", "12:00", "12:30")
    tab.click(form.get_by_role("button", name="Add another segment"))
    form = page.get_by_role("region", name="New shift in Emergency")
    _fill_segment(form, 3, "Working", "12:30", "19:00")
    form.get_by_label("Pay code").select_option(label="Regular (REG)")
    form.get_by_label("Note for the provider").fill("Pod C")
    _fits_the_screen(tab)
    tab.click(form.get_by_role("button", name="Add shift"))
    expect(page.locator("#messages")).to_contain_text("Added Ed Nurse 1's shift.")
    card = page.get_by_role("listitem").filter(has_text="Ed Nurse 1").filter(
        has_text="Pod C")
    expect(card).to_contain_text("7:00 AM")
    _fits_the_screen(tab)
    shift_id = uuid.UUID(card.first.get_attribute("id").removeprefix("shift-")
                         .removesuffix("-day"))
    row, segments, pay = _segments(site, shift_id)
    assert row.note == "Pod C"
    assert pay == [uid("pay:REG")]
    assert segments == [
        ("working", _april(day), _april(day, 12), ["Charge nurse"]),
        ("unpaid_break", _april(day, 12), _april(day, 12, 30), []),
        ("working", _april(day, 12, 30), _april(day, 19), []),
    ]


@JS
def test_edit_segments_labels_pay_code_note_and_mark_a_callout(site, tab, no_js_tab, arrange,
                                                                  javascript):
    _skip_split(site, javascript)
    day = 13 if javascript else 14
    shift_id = arrange(lambda s: add_shift(s, start=_april(day),
                                           provider="ed.nurse1@example.com"))
    tab = tab if javascript else no_js_tab
    tab.sign_in("manager@example.com", start="/manage/schedule?week=2027-04-12")
    page = tab.page
    tab.click(page.locator(f"#shift-{shift_id}"))
    editor = page.get_by_role("region", name="Shift editor")
    expect(_segment(editor, 2).get_by_label("Type")).to_have_value("unpaid_break")
    _fill_segment(editor, 1, "Working", "07:00", "12:00")
    _fill_segment(editor, 2, "Paid break", "12:00", "12:45", ["Float"])
    _segment(editor, 3).get_by_label("From").fill("12:45")
    editor.get_by_label("Pay code").select_option(label="On-call stipend (ONC)")
    editor.get_by_label("Note for the provider").fill("Cover the fast track")
    editor.get_by_label("Callout").check()
    tab.click(editor.get_by_role("button", name="Save shift"))
    expect(page.locator("#messages")).to_contain_text("Saved")
    expect(page.locator(f"#shift-{shift_id}")).to_contain_text("Callout")
    row, segments, pay = _segments(site, shift_id)
    assert row.note == "Cover the fast track"
    assert row.is_callout
    assert pay == [uid("pay:ONC")]
    assert segments == [
        ("working", _april(day), _april(day, 12), []),
        ("paid_break", _april(day, 12), _april(day, 12, 45), ["Float"]),
        ("working", _april(day, 12, 45), _april(day, 19), []),
    ]


@JS
def test_delete_a_shift_after_confirming_on_a_phone(site, phones, arrange, javascript):
    _skip_split(site, javascript)
    day = 20 if javascript else 21
    shift_id = arrange(lambda s: add_shift(s, start=_april(day),
                                           provider="ed.nurse2@example.com"))
    tab = phones(javascript=javascript)
    tab.sign_in("manager@example.com", start=f"/manage/schedule?view=day&day=2027-04-{day}")
    page = tab.page
    card = page.locator(f"#shift-{shift_id}")
    tab.click(card.get_by_role("link", name="Edit"))
    tab.click(page.get_by_role("link", name="Delete shift"))
    question = page.get_by_role("region", name="Delete shift")
    expect(question).to_contain_text("cannot be undone")
    _fits_the_screen(tab)
    assert shift_row(site, shift_id) is not None  # asking deletes nothing
    tab.click(question.get_by_role("button", name="Delete shift"))
    expect(page.locator("#messages")).to_contain_text("Deleted")
    expect(page.locator(f"#shift-{shift_id}")).to_have_count(0)
    assert shift_row(site, shift_id) is None


def change_note(session, shift_id, note: str) -> None:
    """Someone else's edit: a new note, the version raised as every update raises it."""
    session.get(Shift, shift_id).note = note


@JS
def test_version_conflict_on_a_segment_edit(site, tab, no_js_tab, arrange, javascript):
    _skip_split(site, javascript)
    day = 27 if javascript else 28
    shift_id = arrange(lambda s: add_shift(s, start=_april(day),
                                           provider="ed.nurse1@example.com"))
    tab = tab if javascript else no_js_tab
    tab.sign_in("manager@example.com", start="/manage/schedule?week=2027-04-26")
    page = tab.page
    tab.click(page.locator(f"#shift-{shift_id}"))
    editor = page.get_by_role("region", name="Shift editor")
    expect(editor).to_be_visible()
    arrange(lambda s: change_note(s, shift_id, "Changed elsewhere"))
    _fill_segment(editor, 1, "Working", "07:00", "14:00")
    _fill_segment(editor, 2, "Unpaid break", "14:00", "14:30")
    _segment(editor, 3).get_by_label("From").fill("14:30")
    tab.click(editor.get_by_role("button", name="Save shift"))
    conflict = page.get_by_role("alert").filter(has_text="Someone else changed")
    expect(conflict).to_be_visible()
    segments_row = conflict.get_by_role("row", name="Segments")
    expect(segments_row).to_contain_text("your change")
    expect(segments_row).to_contain_text("Unpaid break 2:00 PM\u20132:30 PM")
    expect(conflict.get_by_role("row", name="Note")).to_contain_text("Changed elsewhere")
    tab.click(page.get_by_role("button", name="Apply my change to the latest version"))
    expect(page.locator("#messages")).to_contain_text("Saved")
    row, segments, _ = _segments(site, shift_id)
    assert row.note == "Changed elsewhere"
    assert [(kind, start, end) for kind, start, end, _ in segments] == [
        ("working", _april(day), _april(day, 14)),
        ("unpaid_break", _april(day, 14), _april(day, 14, 30)),
        ("working", _april(day, 14, 30), _april(day, 19)),
    ]
