"""Reports in the browser, JavaScript on and off, on the demo organisation: the administrator
opens Reports, runs the time off summary of the last two weeks (first leaving the last day
before the first, which the form shows on that field), follows the run until its file is ready
(with JavaScript the status panel polls by itself; without, Refresh) and downloads the CSV. Every
page is checked with axe (JavaScript on), and at 390 px the pages are no wider than the screen."""

from __future__ import annotations

import csv
import io
import re
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, Browse, open_tab

pytestmark = pytest.mark.xdist_group("browser")
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def _download_link(browse: Browse, *, javascript: bool) -> Any:
    """The run's download link once it is ready: with JavaScript the panel follows the run by
    itself; without, press Refresh until it shows."""
    page = browse.page
    download = page.get_by_role("link", name=re.compile("^Download the report"))
    if javascript:
        expect(download).to_be_visible(timeout=20_000)
        return download
    for _attempt in range(40):
        if download.count():
            break
        refresh = page.get_by_role("link", name=re.compile("^Refresh"))
        if refresh.count():
            browse.click(refresh)
    expect(download).to_be_visible()
    return download


def _narrow_fits(browse: Browse) -> None:
    page = browse.page
    page.set_viewport_size({"width": 390, "height": 844})
    width, screen = page.evaluate(WIDTH)
    assert width <= screen, page.url
    page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_runs_a_report_and_downloads_it(demo_site: Any, browser: Any, javascript: bool,
                                              tmp_path: Path) -> None:
    zone: ZoneInfo = demo_site.ui.extensions["shiftdesk_web"].settings.zone
    today = datetime.now(zone).date()  # the site's day, never the UTC one
    first, last = today - timedelta(days=14), today - timedelta(days=1)
    with contextmanager(open_tab)(demo_site, browser, javascript=javascript,
                                  viewport=DESKTOP) as browse:
        browse: Browse
        browse.sign_in("admin@example.com")
        page = browse.page
        browse.follow_menu("Reports")
        expect(page.get_by_role("heading", name="Reports", level=1)).to_be_visible()
        expect(page.get_by_role("heading", name="Time off summary")).to_be_visible()
        if javascript:
            _narrow_fits(browse)
        browse.click(page.get_by_role("link", name="Run Time off summary"))
        expect(page.get_by_role("heading", name="Run Time off summary")).to_be_visible()

        # The last day before the first: the API refuses it, on the "Last day" field.
        page.get_by_label("First day").fill(last.isoformat())
        page.get_by_label("Last day").fill(first.isoformat())
        browse.click(page.get_by_role("button", name="Run the report"))
        expect(page.get_by_role("alert")).to_contain_text("Please fix")
        expect(page.get_by_label("Last day")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#end_date-error")).to_contain_text("must come after “First day”")
        if javascript:
            _narrow_fits(browse)

        page.get_by_label("First day").fill(first.isoformat())
        page.get_by_label("Last day").fill(last.isoformat())
        page.get_by_label("Team").select_option(label="All teams")
        browse.click(page.get_by_role("button", name="Run the report"))
        expect(page.get_by_role("heading", name="Time off summary", level=1)).to_be_visible()
        download = _download_link(browse, javascript=javascript)
        expect(page.get_by_text("Status: Ready")).to_be_visible()
        if javascript:
            _narrow_fits(browse)
        with page.expect_download() as caught:
            download.click()
        assert caught.value.suggested_filename.endswith(".csv")
        saved = tmp_path / "report.csv"
        caught.value.save_as(saved)
        rows = list(csv.reader(io.StringIO(saved.read_text())))
        assert rows[0][:2] == ["providerId", "providerName"]

        # The run is listed among the user's recent runs, ready.
        browse.goto("/admin/reports")
        recent = page.get_by_role("table").filter(has_text="Reports you ran")
        expect(recent.get_by_role("row").nth(1)).to_contain_text("Time off summary")
        expect(recent.get_by_role("row").nth(1)).to_contain_text("Ready")
