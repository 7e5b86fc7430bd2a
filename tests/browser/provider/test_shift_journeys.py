"""Open shifts and my shifts in the browser: claiming, a second provider's claim of the same
shift, the week and list views and the calendar export; with and without JavaScript, the open
shifts on a phone, and the shifts that fill a gap marked "Needed" and listed first on request."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.provider.conftest import account, arrange, hours, now, shift
from tests.factories import make_role, make_team, uid

pytestmark = pytest.mark.xdist_group("browser-provider")


@pytest.mark.split_mode
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_claim_then_second_provider_sees_already_claimed(site, tab, no_js_tab, second_tab,
                                                         javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    first = tab if javascript else no_js_tab
    one, two = account(site, "Claim First"), account(site, "Claim Second")
    shift(site, None, start=now() + hours(30), note="Float to triage")
    first.sign_in(one, start="/shifts/open")
    second_tab.sign_in(two, start="/shifts/open")
    card = first.page.get_by_role("listitem").filter(has_text="Float to triage")
    expect(card).to_have_count(1)
    first.click(card.get_by_role("button", name="Claim"))
    expect(first.page.get_by_role("status")).to_contain_text("Shift claimed")

    other = second_tab.page.get_by_role("listitem").filter(has_text="Float to triage")
    second_tab.click(other.get_by_role("button", name="Claim"))
    expect(second_tab.page.get_by_role("alert")).to_contain_text(
        "Someone else already claimed this shift")

    first.goto("/shifts/mine?view=list")
    expect(first.page.get_by_role("main")).to_contain_text("Float to triage")


def test_shift_too_close_to_start_says_why_it_cannot_be_claimed(site, tab):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    email = account(site, "Late Claimer")
    shift(site, None, start=now() + hours(1), note="Starts within the hour")
    tab.sign_in(email, start="/shifts/open")
    card = tab.page.get_by_role("listitem").filter(has_text="Starts within the hour")
    expect(card).to_contain_text("shifts must be claimed at least 2h before they start")
    expect(card.get_by_role("button", name="Claim")).to_have_count(0)


def test_my_shifts_week_list_and_calendar(site, tab):
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    email = account(site, "Week Viewer")
    shift(site, email, start=now() + hours(3), note="Week view shift")
    tab.sign_in(email, start="/shifts/mine")
    page = tab.page
    expect(page.get_by_role("heading", level=1)).to_have_text("My shifts")
    expect(page.get_by_role("main")).to_contain_text("Week view shift")
    tab.click(page.get_by_role("link", name="List"))
    expect(page.get_by_role("heading", name="Next four weeks")).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text("Week view shift")
    with page.expect_download() as download:
        page.get_by_role("link", name="Add to my calendar (.ics)").click()
    body = Path(download.value.path()).read_bytes().decode("utf-8")
    assert body.startswith("BEGIN:VCALENDAR")
    assert "Week view shift" in body.replace("\r\n ", "")


def test_open_shifts_on_a_phone(site, phone, artifacts):
    if site.mode == "split":
        pytest.skip("one phone screenshot is enough; the markup is the same")
    email = account(site, "Phone Claimer")
    shift(site, None, start=now() + hours(28), note="Phone open shift")
    phone.sign_in(email, start="/shifts/open")
    expect(phone.page.get_by_role("main")).to_contain_text("Phone open shift")
    phone.page.screenshot(path=str(artifacts / "provider-open-shifts-phone.png"), full_page=True)


WARD = "Journey Ward"
ZONE = ZoneInfo("America/New_York")


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), ZONE).astimezone(UTC)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_needed_shift_is_marked_and_listed_first_on_request(site, tab, no_js_tab, javascript):
    """A ward of its own for each way, a day 12 days ahead: 2 nurses wanted from 7:00 to
    10:00 AM and 1 until 7:00 PM, one colleague on 7:00 AM to 7:00 PM. The open 7:00 AM to
    1:00 PM shift fills a 3-hour gap; the one the day before, with no forecast, none."""
    if site.mode == "split":
        pytest.skip("a secondary journey: the embedded server is enough")
    browse = tab if javascript else no_js_tab
    name = f"{WARD} {'JS' if javascript else 'no JS'}"

    def ward(session) -> None:
        if session.get(m.Team, uid(f"team:{name}")) is None:
            make_role(session, make_team(session, name), "Registered Nurse")

    arrange(site, ward)
    day = now().astimezone(ZONE).date() + timedelta(days=12)
    viewer, colleague = account(site, "Needs Viewer", team=name), account(
        site, "Needs Colleague", team=name)
    shift(site, colleague, start=_at(day, 7), hours=12, team=name, break_at=None)
    role = uid(f"role:{name}:Registered Nurse")
    arrange(site, lambda session: session.add_all([
        m.DemandForecastRow(role_id=role, start_date=_at(day, 7), end_date=_at(day, 10),
                            demand=2.0),
        m.DemandForecastRow(role_id=role, start_date=_at(day, 10), end_date=_at(day, 19),
                            demand=1.0)]))
    shift(site, None, start=_at(day, 7), hours=6, team=name, break_at=None, note="Gap shift")
    shift(site, None, start=_at(day - timedelta(days=1), 7), hours=6, team=name,
          break_at=None, note="Quiet shift")
    browse.sign_in(viewer, start="/shifts/open")
    page = browse.page
    cards = page.get_by_role("list", name=re.compile("^You can claim")).get_by_role("listitem")
    needed = cards.filter(has_text="Gap shift")
    expect(needed).to_contain_text("Needed: 3h of this shift is short-staffed.")
    expect(cards.filter(has_text="Quiet shift")).not_to_contain_text("Needed")
    expect(cards.first).to_contain_text("Quiet shift")  # by start time
    browse.click(page.get_by_role("link", name="Most needed first"))
    expect(cards.first).to_contain_text("Gap shift")
    expect(page.get_by_role("link", name="Most needed first")).to_have_attribute(
        "aria-current", "true")
    assert browse.path() == "/shifts/open?sort=needed"
    browse.click(page.get_by_role("link", name="By start time"))
    expect(cards.first).to_contain_text("Quiet shift")
