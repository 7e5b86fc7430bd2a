"""A manager signs off a pay period from the team timesheet's panel and exports it for payroll:
a punch that came in meanwhile blocks the sign-off (the API's list shows, linked to the row),
the punch is approved, the period signed off, the export made and downloaded, and the file's
minutes add up to the timesheet's — at 1280 px with JavaScript and at 390 px without. An
administrator reopens a signed-off period: htmx asks in a dialog, without JavaScript a
confirmation page does."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from app.contract.sign_offs import TimesheetSignOffCreate
from app.web.filters import format_minutes
from tests.browser.manager.conftest import add_punches, add_shift, client_as, export_link
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

# Pay periods of the seeded providers' biweekly template, in 2024, where nothing else happens.
PERIODS = {"desktop-js": date(2024, 9, 9), "phone-no-js": date(2024, 9, 23)}
ED = uid("team:Emergency")
NEW_YORK = ZoneInfo("America/New_York")


def _worked_minutes(page) -> str:
    """The team's worked total as the page's totals show it."""
    totals = page.get_by_role("region", name="Totals")
    return totals.get_by_role("definition").first.inner_text().strip()


@pytest.mark.split_mode
@pytest.mark.scaled_mode
@pytest.mark.parametrize("way", list(PERIODS))
def test_sign_off_and_export_the_period(site, tab, phones, arrange, way, tmp_path: Path):
    if site.mode != "embedded" and way != "desktop-js":
        pytest.skip("the split and scaled modes (the UI reaching the API over HTTP, the file "
                    "too; scaled: the file made by the report worker) once")
    javascript = way == "desktop-js"
    browse = tab if way == "desktop-js" else phones(javascript=False)
    page = browse.page
    first = PERIODS[way]
    day = first + timedelta(days=1)
    start = datetime.combine(day, time(11), tzinfo=UTC)  # 7:00 AM in New York (daylight time)
    shift = arrange(lambda s: add_shift(s, start=start))
    browse.sign_in("manager@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?period={first.isoformat()}")
    panel = page.locator("#ts-panel")
    expect(panel).to_contain_text("Open")
    expect(panel).to_contain_text("Nothing blocks it")
    sign_off = panel.get_by_role("button", name="Sign off period")
    expect(sign_off).to_be_enabled()

    # Meanwhile Pat's punches arrive: the sign-off is refused, and the list says why and where.
    arrange(lambda s: add_punches(s, start=start, late_minutes=0))
    browse.click(sign_off)
    blocked = page.get_by_role("list", name="What blocks the sign-off")
    expect(blocked).to_contain_text("Pat Provider: 2 punches pending")
    if way.startswith("phone"):
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    browse.click(blocked.get_by_role("link", name="Pat Provider"))
    row = page.locator(f"#row-{shift}")
    expect(row).to_contain_text("Pending review")
    expect(page.locator("#ts-panel").get_by_role("button", name="Sign off period")).to_be_disabled()
    expect(page.locator("#ts-panel")).to_contain_text("Not yet: 2 punches pending.")

    # Approve the shift; now nothing blocks.
    browse.click(row.get_by_role("button", name=re.compile("^Approve")))
    expect(page.get_by_role("status")).to_contain_text("Approved 2 punches")
    panel = page.locator("#ts-panel")
    browse.click(panel.get_by_role("button", name="Sign off period"))
    expect(page.get_by_role("status")).to_contain_text("Signed off the pay period")
    panel = page.locator("#ts-panel")
    expect(panel).to_contain_text(re.compile(r"Signed off by Morgan Manager on \w"))
    expect(panel).to_contain_text("Only an administrator can reopen")
    expect(page.locator(f"#row-{shift}")).to_contain_text("Signed off: reopen the period")
    expect(page.locator(f"#row-{shift}").get_by_role(
        "link", name=re.compile("^Edit punches"))).to_have_count(0)
    worked = _worked_minutes(page)

    # The export: final now; its progress updates itself with JavaScript, by Refresh without.
    browse.click(panel.get_by_role("button", name="Export for payroll"))
    download = export_link(browse, javascript=javascript)
    if way.startswith("phone"):
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    with page.expect_download() as caught:
        download.click()
    saved = tmp_path / "payroll.csv"
    caught.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    assert rows
    assert {r["status"] for r in rows} == {"signed-off"}
    assert format_minutes(sum(int(r["actualMinutes"]) for r in rows)) == worked
    assert {r["provider"] for r in rows if int(r["actualMinutes"])} == {"Pat Provider"}


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_an_administrator_reopens_a_signed_off_period(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the journey above")
    browse = tab if javascript else no_js_tab
    page = browse.page
    first = date(2024, 10, 7) if javascript else date(2024, 10, 21)
    # The site's midnights: the second period ends after the autumn's change of clocks.
    begin, end = (datetime.combine(d, time(0), tzinfo=NEW_YORK).astimezone(UTC)
                  for d in (first, first + timedelta(days=14)))
    client_as(site, "manager@example.com").create_sign_off(TimesheetSignOffCreate(
        team_id=ED, start_date=begin, end_date=end))
    browse.sign_in("admin@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?team={ED}&period={first.isoformat()}")
    panel = page.locator("#ts-panel")
    expect(panel).to_contain_text(re.compile(r"Signed off by Morgan Manager on \w"))
    expect(panel.get_by_role("button", name="Sign off period")).to_have_count(0)
    reopen = panel.get_by_role("link", name=re.compile("^Reopen"))
    if javascript:
        # htmx asks in the browser's own dialog before it posts.
        page.once("dialog", lambda dialog: dialog.accept())
        browse.click(reopen)
    else:
        browse.click(reopen)
        expect(page.get_by_role("heading", level=1)).to_have_text("Reopen this pay period?")
        expect(page.get_by_text(re.compile("unlocks data payroll may already have"))
               ).to_be_visible()
        browse.click(page.get_by_role("button", name="Reopen period"))
    expect(page.get_by_role("status")).to_contain_text("Reopened the pay period")
    panel = page.locator("#ts-panel")
    expect(panel).to_contain_text("reopened by Ada Admin on")
    expect(panel.get_by_role("button", name="Sign off period")).to_be_enabled()
    expect(panel.get_by_role("button", name="Preliminary export")).to_be_visible()
