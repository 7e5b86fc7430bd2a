"""Decisions against the demand forecast (issue 18), as manager@example.com on the Emergency
team: approve a time-off request after reading what it leaves short, and see the schedule's
strip fall short; post a shift from a short stretch of the day and see the stretch go. Each
journey forecasts its own week of September or October 2027 (New York summer time: UTC-4),
with and without JavaScript.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from app.api import models as m
from tests.browser.manager.conftest import add_request, add_shift, shift_row
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

NURSES = uid("role:Emergency:Registered Nurse")


def _local(day: int, hour: int = 0) -> datetime:
    """`hour` o'clock in New York on `day` September 2027 (past 30: into October), as UTC."""
    return datetime(2027, 9, 1, 4, tzinfo=UTC) + timedelta(days=day - 1, hours=hour)


def _date(day: int) -> str:
    return _local(day).date().isoformat()


def _forecast(session, *, start: datetime, end: datetime, demand: float) -> None:
    session.add(m.DemandForecastRow(role_id=NURSES, start_date=start, end_date=end,
                                    demand=demand, extra={"source": "journey"}))


def _nurses_caption(tab):
    return tab.page.locator("#coverage caption").filter(has_text="Registered Nurse")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_approving_time_off_after_reading_the_preview_leaves_the_strip_short(
        site, tab, no_js_tab, arrange, artifacts, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    monday = 13 if javascript else 20  # a week of its own each
    wednesday = monday + 2
    # One nurse wanted from 7 AM to 7 PM, and Pat works then (a break from 1:00 to 1:30 PM).
    arrange(lambda s: _forecast(s, start=_local(wednesday, 7), end=_local(wednesday, 19),
                                demand=1))
    shift_id = arrange(lambda s: add_shift(s, start=_local(wednesday, 7)))
    request_id = arrange(lambda s: add_request(s, start=_local(wednesday), note="Coverage"))
    tab = tab if javascript else no_js_tab
    week = f"/manage/schedule?week={_date(monday)}&view=week"
    tab.sign_in("manager@example.com", start=week)
    expect(_nurses_caption(tab)).to_have_text(
        "Registered Nurse: 0.5 staff-hours short this week")
    day = _date(wednesday)
    tab.goto(f"/manage/time-off?start={day}&end={day}")
    row = tab.page.locator(f"#request-{request_id}")
    tab.click(row.get_by_role("link", name="Review and decide"))
    row = tab.page.locator(f"#request-{request_id}")
    preview = row.locator(f"#coverage-{request_id}")
    expect(preview).to_contain_text("Coverage if you approve")
    expect(preview).to_contain_text("Pat Provider leaves the floor: these hours fall short of "
                                    "the forecast.")
    expect(preview.get_by_role("listitem").first).to_contain_text(
        re.compile(r"Registered Nurse, .*7:00\sAM\s\u2013\s1:00\sPM: 1 short \(was covered\)"))
    expect(preview).to_contain_text("In all 12 staff-hours short of the forecast over these "
                                    "shifts, against 0.5 now.")
    tab.page.screenshot(path=artifacts / f"manager-coverage-preview-{site.mode}-"
                                         f"{'js' if javascript else 'nojs'}.png",
                        full_page=True, caret="initial")
    row.get_by_label("Delete the shifts", exact=True).check()
    tab.click(row.get_by_role("button", name="Approve", exact=True))
    expect(tab.page.locator("#messages")).to_contain_text("Approved Pat Provider's time off")
    assert shift_row(site, shift_id) is None
    tab.goto(week)
    expect(_nurses_caption(tab)).to_have_text(
        "Registered Nurse: 12 staff-hours short this week")
    strip = tab.page.locator("#coverage")
    expect(strip).to_contain_text("7:00 AM: 1 needed, 0 scheduled, 1 short")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_shift_posted_from_a_short_stretch_closes_it(site, tab, no_js_tab, arrange, artifacts,
                                                       javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    monday = 27 if javascript else 34  # weeks of their own, after the approval journey's
    thursday = monday + 3
    # Two nurses wanted from 9 AM to 5 PM; one works 7 AM to 7 PM (a break at 1:00 PM).
    arrange(lambda s: _forecast(s, start=_local(thursday, 9), end=_local(thursday, 17),
                                demand=2))
    arrange(lambda s: add_shift(s, start=_local(thursday, 7), provider="ed.nurse1@example.com"))
    tab = tab if javascript else no_js_tab
    page = tab.page
    day = f"/manage/schedule?day={_date(thursday)}&view=day"
    tab.sign_in("manager@example.com", start=day)
    stretches = page.locator("#coverage-day")
    expect(stretches).to_contain_text("Short of staff: 3 stretches")
    tab.click(stretches.get_by_text("Short of staff"))  # open the list
    first = stretches.get_by_role("listitem").first
    expect(first).to_contain_text(re.compile(
        r"Registered Nurse, 9:00\sAM\s\u2013\s1:00\sPM: 2 needed, 1 scheduled \u2014 1 short"))
    tab.click(first.get_by_role("link", name=re.compile("^Post an open shift for this gap")))
    form = page.locator("#new-shift")
    expect(form.get_by_label("Date")).to_have_value(_date(thursday))
    expect(form.get_by_label("Starts")).to_have_value("09:00")
    expect(form.get_by_label("Ends")).to_have_value("13:00")
    expect(form.get_by_label("Main role")).to_have_value(str(NURSES))
    expect(page.get_by_role("heading", level=1)).to_have_text("Team schedule: Emergency")
    # Someone takes the gap at once: Ed Nurse 2 rather than an open shift.
    form.get_by_label("Provider", exact=True).select_option(label="Ed Nurse 2")
    page.screenshot(path=artifacts / f"manager-coverage-gap-form-{site.mode}-"
                                     f"{'js' if javascript else 'nojs'}.png",
                    full_page=True, caret="initial")
    tab.click(form.get_by_role("button", name="Add shift"))
    expect(page.locator("#messages")).to_contain_text("Added Ed Nurse 2's shift")
    expect(stretches).to_contain_text("Short of staff: 2 stretches")
    expect(stretches).not_to_contain_text("9:00\u202fAM")
    expect(stretches).not_to_contain_text("9:00 AM")
    tab.goto(f"/manage/schedule?week={_date(monday)}&view=week")
    # 16 staff-hours wanted, 7.5 worked: 8.5 short; Ed Nurse 2's four hours leave 4.5.
    expect(_nurses_caption(tab)).to_have_text(
        "Registered Nurse: 4.5 staff-hours short this week")
    with site.api.extensions["shiftdesk"].db.unit_of_work() as session:
        held = session.scalar(
            m.Shift.__table__.select().with_only_columns(m.Shift.start_date)
            .where(m.Shift.provider_id == uid("user:ed.nurse2@example.com"),
                   m.Shift.start_date >= _local(thursday), m.Shift.start_date < _local(
                       thursday) + timedelta(days=1)))
    assert held is not None
    assert held.replace(tzinfo=UTC) == _local(thursday, 9)
