"""A manager opens the coverage chart from the team schedule's coverage strip, with JavaScript on
a wide screen and without it on a phone: the chart's table shows the API's numbers for the same
week, the drawing is named and described, and the page fits the phone. The seeded forecast asks
for 4 Emergency nurses from 7:00 AM to 7:00 PM on Monday 2 March 2026; the week holds the night
the clocks go forward."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.contract.forecasting import CoverageQuery
from app.web.filters import format_headcount
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.manager.conftest import client_as
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

ZONE = ZoneInfo("America/New_York")
MONDAY = date(2026, 3, 2)
FITS = "document.documentElement.scrollWidth <= window.innerWidth"


def _api_rows(site) -> list[list[str]]:
    """The nurses' week as the API counts it, written as the table writes each figure."""
    start = datetime.combine(MONDAY, time(0), ZONE).astimezone(UTC)
    end = datetime.combine(MONDAY + timedelta(days=7), time(0), ZONE).astimezone(UTC)
    coverage = client_as(site, "manager@example.com").get_coverage(CoverageQuery(
        team_id=uid("team:Emergency"), start_date=start, end_date=end))
    nurse = next(r for r in coverage.roles if r.role_name == "Registered Nurse")

    def gap(value: float) -> str:
        if value > 0:
            return f"{format_headcount(value)} short"
        return f"{format_headcount(-value)} over" if value < 0 else "0"

    return [[format_headcount(c.demand), format_headcount(c.scheduled),
             format_headcount(c.open), gap(c.gap)] for c in nurse.intervals]


@pytest.mark.parametrize(("javascript", "size"), [(True, DESKTOP), (False, PHONE)],
                         ids=["js-desktop", "no-js-phone"])
def test_the_chart_shows_the_apis_numbers(site, screens, javascript, size):
    if site.mode == "split" and not javascript:
        pytest.skip("the split mode is proved with JavaScript")
    tab = screens(size=size, javascript=javascript)
    team = uid("team:Emergency")
    tab.sign_in("manager@example.com",
                start=f"/manage/schedule?team={team}&week={MONDAY}&view=week")
    tab.click(tab.page.get_by_role("link", name="See the chart"))
    page = tab.page
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Coverage against demand: Emergency")
    expect(page).to_have_title(re.compile("^Coverage chart"))
    drawing = page.get_by_role("img", name=re.compile("^Registered Nurse, week of"))
    expect(drawing).to_be_visible()
    expect(page.get_by_text("No forecast for Physician")).to_be_visible()
    table = page.get_by_role("region", name="Registered Nurse, every 1h")
    lines = [re.split(r"\t+", text.strip()) for text in
             table.get_by_role("row").all_inner_texts()]
    rows = [line[1:] for line in lines if len(line) == 5 and line[0] != "Starts"]
    assert rows == _api_rows(site)
    assert len(rows) == 7 * 24 - 1  # Sunday 8 March has no 2 AM
    assert page.evaluate(FITS)
    tab.click(page.get_by_role("link", name="Next week"))
    expect(page.get_by_text(
        "No demand forecast for Emergency in this week: nothing to compare the schedule with.",
    )).to_be_visible()
    assert "week=2026-03-09" in tab.path()
    tab.click(page.get_by_role("link", name="Back to the team schedule"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Team schedule: Emergency")
