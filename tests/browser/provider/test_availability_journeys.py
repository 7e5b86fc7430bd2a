"""Availability journeys: a provider states their week (adding a row) and a day off, then the
manager sees that time shaded, in words, on the team schedule. With and without JavaScript."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.browser.provider.conftest import account, now
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")


def _row(page, name):
    return page.get_by_role("group", name=name)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_provider_states_availability_and_manager_sees_it(site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    name = "Avail Js" if javascript else "Avail Nojs"
    email = account(site, name)
    today = now().astimezone(ZONE).date()
    monday = today - timedelta(days=today.weekday()) + timedelta(days=14)
    wednesday = monday + timedelta(days=2)

    browse.sign_in(email, start="/availability")
    page = browse.page
    expect(page.get_by_role("heading", level=1)).to_have_text("Availability")
    page.get_by_label("Applies from").fill(monday.isoformat())
    first = _row(page, "Row 1")
    first.get_by_label("Day").select_option(label="Monday")
    first.get_by_label("From").fill("07:00")
    first.get_by_label("To").fill("15:00")
    first.get_by_label("I am").select_option(label="Unavailable")
    browse.click(page.get_by_role("button", name="Add a row"))
    second = _row(page, "Row 2")
    expect(second).to_be_visible()
    expect(_row(page, "Row 1").get_by_label("From")).to_have_value("07:00")
    second.get_by_label("Day").select_option(label="Tuesday")
    second.get_by_label("From").fill("09:00")
    second.get_by_label("To").fill("17:00")
    second.get_by_label("I am").select_option(label="Preferred")
    browse.click(page.get_by_role("button", name="Save my week"))
    expect(page.get_by_role("status")).to_contain_text("Your weekly availability is saved")
    expect(page.get_by_role("main")).to_contain_text("Monday: Unavailable 7:00 AM")

    browse.click(page.get_by_role("link", name="Add a day off"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Add a day off")
    page.get_by_label("First day").fill(wednesday.isoformat())
    page.get_by_label("Last day").fill(wednesday.isoformat())
    page.get_by_label("Note (optional)").fill("Dentist")
    browse.click(page.get_by_role("button", name="Add", exact=True))
    expect(page.get_by_role("status")).to_contain_text("Added to your availability.")
    expect(page.get_by_role("listitem").filter(has_text="Dentist")).to_contain_text("Unavailable")

    browse.sign_out()
    team = uid("team:Emergency")
    browse.sign_in("manager@example.com",
                   start=f"/manage/schedule?team={team}&week={monday.isoformat()}&view=week")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name=name))
    expect(row).to_contain_text("Unavailable 7:00 AM")
    expect(row).to_contain_text("Prefers 9:00 AM")
    expect(row).to_contain_text("Unavailable all day: Dentist")
