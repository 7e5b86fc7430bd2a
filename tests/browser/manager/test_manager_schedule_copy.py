"""A manager copies on the team schedule, with JavaScript and without, on a wide screen and on a
phone: a shift to two other days of its week, and last week into this one, seeing what was
skipped and why. Each journey on its own weeks of 2028."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.manager.conftest import add_shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

FITS = "document.documentElement.scrollWidth <= window.innerWidth"


def _at(day: datetime, hour: int) -> datetime:
    """`hour` o'clock in New York (daylight time, UTC-4) on `day`."""
    return day.replace(hour=hour + 4, tzinfo=UTC)


def _starts(site, email: str | None, begin: datetime, end: datetime) -> list[datetime]:
    """When the ED shifts of `email` (None: open shifts) in [begin, end) start, in UTC."""
    with site.api.extensions["shiftdesk"].db.unit_of_work() as session:
        query = select(m.Shift.start_date).where(
            m.Shift.team_id == uid("team:Emergency"), m.Shift.start_date >= begin,
            m.Shift.start_date < end, m.Shift.is_callout.is_(False))
        query = query.where(m.Shift.provider_id.is_(None) if email is None
                            else m.Shift.provider_id == uid(f"user:{email}"))
        return sorted(s.astimezone(UTC) for s in session.scalars(query))


@pytest.mark.parametrize(("javascript", "size"), [(True, DESKTOP), (False, PHONE)],
                         ids=["js-desktop", "no-js-phone"])
def test_copy_a_shift_to_two_days(site, screens, arrange, javascript, size):
    monday = datetime(2028, 5, 1) if javascript else datetime(2028, 5, 8)
    email = "ed.nurse2@example.com"
    shift_id = arrange(lambda s: add_shift(s, start=_at(monday, 7), provider=email))
    tab = screens(size=size, javascript=javascript)
    if size == DESKTOP:  # the week grid: the shift's chip opens its editor
        tab.sign_in("manager@example.com", start=f"/manage/schedule?week={monday:%Y-%m-%d}")
        tab.click(tab.page.locator(f"#shift-{shift_id}"))
    else:  # a phone shows the day: the shift's card has an Edit link
        tab.sign_in("manager@example.com", start=f"/manage/schedule?day={monday:%Y-%m-%d}")
        tab.click(tab.page.get_by_role("link", name=re.compile("^Edit Ed Nurse 2")))
    tab.click(tab.page.get_by_role("link", name="Copy to other days"))
    expect(tab.page.get_by_role("heading", name="Copy a shift")).to_be_visible()
    expect(tab.page.get_by_label(re.compile(r"this shift's day"))).to_be_disabled()
    assert tab.page.evaluate(FITS)
    wednesday, friday = monday + timedelta(days=2), monday + timedelta(days=4)
    tab.page.get_by_label(re.compile(f"{wednesday:%a} {wednesday.day} ")).check()
    tab.page.get_by_label(re.compile(f"{friday:%a} {friday.day} ")).check()
    tab.click(tab.page.get_by_role("button", name="Copy shift"))
    result = tab.page.get_by_role("status").filter(has_text="Copied 2 shifts")
    expect(result).to_be_visible()
    expect(result.get_by_role("list", name="Shifts created")).to_contain_text(
        f"{friday:%a} {friday.day}")
    assert tab.page.evaluate(FITS)
    assert _starts(site, email, _at(monday, 0), _at(monday + timedelta(days=7), 0)) == [
        _at(monday, 7), _at(wednesday, 7), _at(friday, 7)]
    tab.click(tab.page.get_by_role("link", name="Back to the schedule"))
    expect(tab.page.get_by_role("heading", name=re.compile("Team schedule"))).to_be_visible()


@pytest.mark.parametrize(("javascript", "size"), [(True, PHONE), (False, DESKTOP)],
                         ids=["js-phone", "no-js-desktop"])
def test_copy_last_week_lists_what_was_skipped(site, screens, arrange, javascript, size,
                                               artifacts):
    last = datetime(2028, 6, 5) if javascript else datetime(2028, 6, 19)
    this = last + timedelta(days=7)

    def build(session):
        add_shift(session, start=_at(last, 7), provider="ed.nurse3@example.com")
        add_shift(session, start=_at(last + timedelta(days=1), 7),
                  provider="ed.nurse1@example.com")
        add_shift(session, start=_at(last + timedelta(days=2), 7), provider=None,
                  break_at=None, hours=8)
        # Ed Nurse 1 already works that Tuesday afternoon this week.
        add_shift(session, start=_at(this + timedelta(days=1), 13),
                  provider="ed.nurse1@example.com")

    arrange(build)
    tab = screens(size=size, javascript=javascript)
    tab.sign_in("manager@example.com", start=f"/manage/schedule?week={this:%Y-%m-%d}")
    tab.page.screenshot(path=artifacts / f"copy-week-schedule-{site.mode}-{size['width']}.png",
                        caret="initial")
    tab.click(tab.page.get_by_role("link", name="Copy last week"))
    expect(tab.page.get_by_text("2 shifts will be copied, 1 skipped")).to_be_visible()
    skipped = tab.page.get_by_role("list", name=re.compile("Will be skipped"))
    expect(skipped).to_contain_text("Overlaps Ed Nurse 1's shift")
    expect(tab.page.get_by_text("Callouts are not copied")).to_be_visible()
    assert tab.page.evaluate(FITS)
    tab.click(tab.page.get_by_role("button", name="Copy 2 shifts"))
    result = tab.page.get_by_role("status").filter(has_text="Copied 2 shifts; skipped 1")
    expect(result).to_be_visible()
    expect(result.get_by_role("list", name="Shifts skipped")).to_contain_text(
        "Overlaps Ed Nurse 1's shift")
    assert tab.page.evaluate(FITS)
    tab.page.screenshot(path=artifacts / f"copy-week-{site.mode}-{size['width']}.png",
                        full_page=True, caret="initial")
    week_after = this + timedelta(days=7)
    assert _starts(site, "ed.nurse3@example.com", _at(this, 0), _at(week_after, 0)) == [
        _at(this, 7)]
    assert _starts(site, None, _at(this, 0), _at(week_after, 0)) == [
        _at(this + timedelta(days=2), 7)]
    assert _starts(site, "ed.nurse1@example.com", _at(this, 0), _at(week_after, 0)) == [
        _at(this + timedelta(days=1), 13)]
    tab.click(tab.page.get_by_role("link", name="Preview copying again"))
    expect(tab.page.get_by_text("copying again would create nothing")).to_be_visible()
    expect(tab.page.get_by_role("button", name=re.compile("^Copy \\d"))).to_have_count(0)
