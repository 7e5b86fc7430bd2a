"""The ED manager uploads a demand forecast in the browser, JavaScript on and off: a file with
two bad rows is refused with a table of them and nothing is sent; the fixed file goes up (with
JavaScript a progress bar moves batch by batch; without, one post ends on the result page),
and the team schedule's coverage strip then shows the demand. Each run has its own weeks (in
2028, where the seeded world has no forecast)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from app.api import models as m
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
NURSE = uid("role:Emergency:Registered Nurse")
# Every value the upload's progress bar takes, as each htmx swap settles.
WATCH_BATCHES = """() => { window.batches = [];
  document.addEventListener("htmx:afterSettle", () => {
    const bar = document.querySelector("#forecast-upload progress:not([data-upload-progress])");
    if (bar) { window.batches.push([Number(bar.value), Number(bar.max)]); }
  }); }"""
MONDAYS = {True: datetime(2028, 6, 5), False: datetime(2028, 9, 4)}


def _file(monday: datetime, rows: int) -> str:
    """`rows` hourly rows of Emergency nurses from `monday` midnight (site time), 1 to 4."""
    lines = ["role,start,end,demand"]
    for i in range(rows):
        start = monday + timedelta(hours=i)
        lines.append(f"Registered Nurse,{start:%Y-%m-%d %H:%M},"
                     f"{start + timedelta(hours=1):%Y-%m-%d %H:%M},{1 + i % 4}")
    return "\n".join(lines) + "\n"


def _stored(arrange, monday: datetime) -> int:
    since = monday.replace(tzinfo=UTC)
    return arrange(lambda s: s.scalar(select(func.count()).select_from(m.DemandForecastRow).where(
        m.DemandForecastRow.role_id == NURSE, m.DemandForecastRow.start_date >= since,
        m.DemandForecastRow.start_date < since + timedelta(days=70))))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_manager_fixes_a_forecast_file_and_sees_it_on_the_schedule(site, tab, no_js_tab,
                                                                    arrange, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough")
    browse = tab if javascript else no_js_tab
    monday = MONDAYS[javascript]
    good = _file(monday, 1500)
    lines = good.splitlines()
    lines[3] = lines[3].replace("Registered Nurse", "Midwife")
    lines[5] = lines[5].rsplit(",", 1)[0] + ",-2"
    bad = "\n".join(lines) + "\n"
    before = _stored(arrange, monday)

    browse.sign_in("manager@example.com", start="/")
    page = browse.page
    browse.click(page.get_by_role("navigation", name="Main")
                 .get_by_role("link", name="Demand forecast"))
    expect(page.get_by_role("heading", name="Demand forecast", level=1)).to_be_visible()
    expect(page.get_by_role("table").last).to_contain_text("Registered Nurse")

    page.get_by_label("CSV file").set_input_files({"name": "june.csv", "mimeType": "text/csv",
                                                   "buffer": bad.encode()})
    browse.click(page.get_by_role("button", name="Check and upload"))
    refusal = page.get_by_role("table", name="Rows to fix")
    expect(refusal).to_contain_text("No role named “Midwife”")
    expect(refusal).to_contain_text("below zero")
    expect(refusal.get_by_role("row")).to_have_count(3)  # the header and the two rows
    expect(page.get_by_role("alert")).to_contain_text("“june.csv” was not sent: 2 rows to fix")
    assert _stored(arrange, monday) == before

    if javascript:
        page.evaluate(WATCH_BATCHES)
    page.get_by_label("CSV file").set_input_files({"name": "june.csv", "mimeType": "text/csv",
                                                   "buffer": good.encode()})
    browse.click(page.get_by_role("button", name="Check and upload"))
    result = page.get_by_role("region", name="“june.csv” is stored")
    expect(result).to_be_visible()
    browse.audit()
    expect(result).to_contain_text("1,500, all new")
    expect(result).to_contain_text("Registered Nurse (Emergency)")
    assert _stored(arrange, monday) == before + 1500
    if javascript:  # the bar stood at each batch's start, then the result replaced it
        assert page.evaluate("window.batches") == [[0, 1500], [1000, 1500]]
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1280, "height": 900})

    browse.click(page.get_by_role("link", name="See the first week on the team schedule"))
    strip = page.get_by_role("region", name="Coverage against demand")
    nurses = strip.get_by_role("table", name="Registered Nurse")
    expect(nurses).to_contain_text("7:00 AM: 4 needed, 0 scheduled, 4 short")
    expect(nurses).to_contain_text("12:00 AM: 1 needed, 0 scheduled, 1 short")
