"""A manager writes punches on the team timesheet: adds a forgotten clock-in (then, once the
period is signed off, is refused inline), and fixes two missing clock-outs in one action; Pat
sees each on /timecard with the manager's note. With and without JavaScript, at 1280 and 390 px.

Each way of browsing works in its own pay period of summer 2026 (in the past, so the API takes
the punches; no other journey punches there)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime, time, timedelta

import pytest

from app.api import models as m
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.lists import too_small
from tests.browser.manager.conftest import add_shift, provider_punches
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

PAT = uid("user:provider@example.com")
FIRST = date(2026, 6, 1)  # a pay period of the seeded biweekly template (from 23 Feb 2026)
WIDTH = "() => document.documentElement.scrollWidth"


def _period(index: int) -> date:
    return FIRST + timedelta(days=14 * index)


def _local(day: date, hour: int) -> datetime:
    """`hour` o'clock of `day` in New York (EDT, UTC-4, all summer)."""
    return datetime.combine(day, time(0), tzinfo=UTC) + timedelta(hours=hour + 4)


def _timecard(session, first: date) -> uuid.UUID:
    """Pat's timecard of the pay period from `first` (14 days, local midnights)."""
    card = m.Timecard(provider_id=PAT, period_start=_local(first, 0),
                      period_end=_local(first + timedelta(days=14), 0))
    session.add(card)
    session.flush()
    return card.id


def _punch(session, card, action: str, at: datetime) -> None:
    session.add(m.TimecardPunch(timecard_id=card, provider_id=PAT, action=action,
                                state="pending", time=at))


def _browse(way: str, tab, no_js_tab, screens):
    if way == "desktop-js":
        return tab
    if way == "desktop-no-js":
        return no_js_tab
    return screens(size=PHONE, javascript=way == "phone-js")


def _fits(browse) -> None:
    if browse.page.viewport_size["width"] == PHONE["width"]:
        assert browse.page.evaluate(WIDTH) <= PHONE["width"]
        assert too_small(browse.page) == []


@pytest.mark.parametrize("way", ["desktop-js", "phone-no-js"])
def test_add_a_forgotten_clock_in_then_be_refused_once_signed_off(site, tab, no_js_tab, screens,
                                                                   arrange, way):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the other journeys")
    browse = _browse(way, tab, no_js_tab, screens)
    first = _period(0 if way == "desktop-js" else 1)
    day = first + timedelta(days=2)
    shift = arrange(lambda s: add_shift(s, start=_local(day, 7)))

    def clocked_out_only(session):
        _punch(session, _timecard(session, first), "clock_out", _local(day, 19) +
               timedelta(minutes=2))

    arrange(clocked_out_only)
    page = browse.page
    browse.sign_in("manager@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?period={day.isoformat()}&provider={PAT}")
    row = page.locator(f"#row-{shift}")
    expect(row).to_contain_text("no punches")  # the lone clock-out is a session of no shift
    browse.click(row.get_by_role("link", name=re.compile("^Add clock in")))

    # The form comes prefilled with the scheduled start of the shift (with JavaScript, in Pat's
    # section of the timesheet; without, as a page).
    expect(page.get_by_role("heading", name="Add a punch for Pat Provider")).to_be_visible()
    expect(page.get_by_label("Punch", exact=True)).to_have_value("clock_in")
    expect(page.get_by_label("Date", exact=True)).to_have_value(day.isoformat())
    expect(page.get_by_label("Time", exact=True)).to_have_value("07:00")
    _fits(browse)
    browse.click(page.get_by_role("button", name="Add punch"))  # no note yet
    expect(page.get_by_role("alert")).to_contain_text("Tell the provider why you add this punch.")
    expect(page.get_by_label("Note for the provider")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Note for the provider").fill("Badge reader missed the clock-in")
    browse.click(page.get_by_role("button", name="Add punch"))
    expect(page.get_by_role("status")).to_contain_text("added for Pat Provider")
    row = page.locator(f"#row-{shift}")
    expect(row).to_contain_text("7:00 AM \u2013 7:02 PM")
    seen = provider_punches(site, _local(day, 0), _local(day, 24))
    added = [p for p in seen.values() if p.action == "clock_in"]
    assert [(p.state, p.admin_note) for p in added] == [
        ("approved", "Badge reader missed the clock-in")]

    # Signed off, the period takes no punch: the API's words, on the form.
    def sign_off(session):
        signed = m.TimesheetSignOff(team_id=uid("team:Emergency"), start_date=_local(first, 0),
                                    end_date=_local(first + timedelta(days=14), 0),
                                    signed_by_id=uid("user:manager@example.com"))
        signed.providers = [session.get(m.Provider, PAT)]
        session.add(signed)

    arrange(sign_off)
    browse.goto(f"/manage/timesheets?period={day.isoformat()}&provider={PAT}")
    browse.click(page.get_by_role("link", name="Add a punch for Pat Provider"))
    page.get_by_label("Punch", exact=True).select_option("break_start")
    page.get_by_label("Date", exact=True).fill(day.isoformat())
    page.get_by_label("Time", exact=True).fill("13:00")
    page.get_by_label("Note for the provider").fill("Forgot the break")
    browse.click(page.get_by_role("button", name="Add punch"))
    expect(page.get_by_role("alert")).to_contain_text("signed off")
    expect(page.get_by_role("heading", name="Add a punch for Pat Provider")).to_be_visible()
    expect(page.get_by_label("Note for the provider")).to_have_value("Forgot the break")
    _fits(browse)
    # The signed-off shift offers no editing, and says why; the punches stay.
    browse.goto(f"/manage/timesheets?period={day.isoformat()}&provider={PAT}")
    row = page.locator(f"#row-{shift}")
    expect(row).to_contain_text("Signed off: reopen the period to change these punches.")
    expect(row.get_by_role("link", name=re.compile("^Edit punches"))).to_have_count(0)
    assert len(provider_punches(site, _local(day, 0), _local(day, 24))) == 2

    # Pat sees the added clock-in with the note, and who signed the period off.
    pat = screens(size=PHONE if way.startswith("phone") else DESKTOP,
                  javascript=way.endswith("-js"))
    pat.sign_in("provider@example.com", start=f"/timecard?period={day.isoformat()}")
    card = pat.page.locator(f"#row-{shift}")
    expect(card).to_contain_text(
        "Added by your manager: clocked in at 7:00 AM. Note: Badge reader missed the clock-in")
    expect(pat.page.get_by_role("note")).to_contain_text("Signed off by Morgan Manager on")
    expect(pat.page.get_by_text("Delete a punch made by mistake")).to_have_count(0)
    _fits(pat)


@pytest.mark.parametrize("way", ["phone-js", "desktop-no-js"])
def test_fix_two_missing_clock_outs_in_one_action(site, tab, no_js_tab, screens, arrange, way):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the other journeys")
    browse = _browse(way, tab, no_js_tab, screens)
    first = _period(2 if way == "phone-js" else 3)
    days = [first + timedelta(days=1), first + timedelta(days=3)]
    shifts = [arrange(lambda s, d=d: add_shift(s, start=_local(d, 7))) for d in days]

    def clocked_in_only(session):
        card = _timecard(session, first)
        for d in days:
            _punch(session, card, "clock_in", _local(d, 7) - timedelta(minutes=3))

    arrange(clocked_in_only)
    page = browse.page
    browse.sign_in("manager@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?period={first.isoformat()}&provider={PAT}")
    for shift in shifts:
        expect(page.locator(f"#row-{shift}")).to_contain_text("No clock-out")
    browse.click(page.get_by_role("link", name="Fix 2 missing clock-outs"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Fix missing clock-outs: Emergency")
    boxes = page.get_by_role("group", name="Clock-outs to add").get_by_role("checkbox")
    expect(boxes).to_have_count(2)
    for index, day in enumerate(days):
        box = page.get_by_role("checkbox", name=re.compile(
            rf"^Pat Provider, \w{{3}} {day.day} {day:%b}: clock out at 7:00 PM"))
        expect(box).to_be_checked()
        assert boxes.nth(index).get_attribute("value") == str(shifts[index])
    expect(page.get_by_label("Note for the providers")).to_have_value(
        "Clock-out added at the scheduled end of the shift.")
    _fits(browse)
    browse.click(page.get_by_role("button", name="Add kept clock-outs"))
    status = page.get_by_role("status")
    for day in days:
        expect(status).to_contain_text(
            f"Clock-out added for Pat Provider's shift of {day:%a} {day.day} {day:%b} at 7:00 PM.")
    for shift in shifts:
        row = page.locator(f"#row-{shift}")
        expect(row).to_contain_text("6:57 AM \u2013 7:00 PM")
        expect(row).not_to_contain_text("No clock-out")
    expect(page.get_by_role("link", name=re.compile("missing clock-out"))).to_have_count(0)
    seen = provider_punches(site, _local(first, 0), _local(first + timedelta(days=14), 0))
    outs = sorted(p.time for p in seen.values() if p.action == "clock_out")
    assert outs == [_local(d, 19) for d in days]

    pat = screens(size=PHONE if way.startswith("phone") else DESKTOP,
                  javascript=way.endswith("-js"))
    pat.sign_in("provider@example.com", start=f"/timecard?period={first.isoformat()}")
    for shift in shifts:
        expect(pat.page.locator(f"#row-{shift}")).to_contain_text(
            "Added by your manager: clocked out at 7:00 PM. Note: Clock-out added at the "
            "scheduled end of the shift.")
    _fits(pat)
