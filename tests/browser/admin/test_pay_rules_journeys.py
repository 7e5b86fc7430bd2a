"""The administrator's pay rules in the browser, JavaScript on and off, on the demo organisation
(a month of punches, so the preview has people and hours): open Pay rules, pick the US hospital
8-and-80 preset for a team, preview it against the last period (each person's hours under the
current rule beside the edited one, with the difference), save, and find the team under the new
rule. With JavaScript the preview replaces only its own region, and at 390 px the page with its
preview table is no wider than the screen."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, Browse, open_tab

pytestmark = pytest.mark.xdist_group("browser")
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.mark.parametrize(("javascript", "team"), [(True, "Emergency"),
                                                   (False, "Outpatient Clinic")],
                         ids=["js", "no-js"])
def test_admin_previews_the_8_and_80_preset_for_a_team_then_saves_it(demo_site: Any,
                                                                     browser: Any,
                                                                     javascript: bool,
                                                                     team: str) -> None:
    name = f"{team} 8 and 80 {uuid.uuid4().hex[:4]}"
    with contextmanager(open_tab)(demo_site, browser, javascript=javascript,
                                  viewport=DESKTOP) as browse:
        browse: Browse
        browse.sign_in("admin@example.com")
        page = browse.page
        browse.click(page.get_by_role("main").get_by_role("link", name="Pay rules"))
        expect(page.get_by_role("heading", name="Pay rules", level=1)).to_be_visible()
        browse.click(page.get_by_role("link", name=f"Change rule for {team}"))
        expect(page.get_by_role("heading", name=f"Pay rule for {team}")).to_be_visible()
        browse.click(page.get_by_role("link", name="US hospital 8 and 80"))
        expect(page.get_by_text("Over 8 hours a day, paid as Overtime \u00d71.5")).to_be_visible()
        page.get_by_label("Name").fill(name)
        heading = page.get_by_role("heading", name=f"Pay rule for {team}")
        if javascript:
            heading.evaluate("h => h.dataset.kept = 'yes'")  # gone if the whole page reloads

        browse.click(page.get_by_role("button", name="Preview"))
        preview = page.get_by_role("region", name="Preview")
        expect(preview).to_contain_text("Nothing has been saved.")
        table = preview.get_by_role("table")
        expect(table.get_by_role("columnheader", name="Current").first).to_be_visible()
        expect(table.get_by_role("columnheader", name="Edited").first).to_be_visible()
        expect(table.get_by_role("columnheader", name="Difference").first).to_be_visible()
        expect(table.get_by_role("rowheader", name="Total")).to_be_visible()
        assert table.get_by_role("row").count() > 4  # two header rows, people, the total
        expect(table.get_by_role("cell", name="+", exact=False).first).to_be_visible()
        if javascript:
            assert heading.evaluate("h => h.dataset.kept") == "yes"
            page.set_viewport_size({"width": 390, "height": 844})
            width, screen = page.evaluate(WIDTH)
            assert width <= screen
            page.set_viewport_size(DESKTOP)
        expect(page.get_by_label("Name")).to_have_value(name)

        browse.click(page.get_by_role("button", name=f"Save and pay {team} under it"))
        expect(page.get_by_role("status")).to_contain_text(f"{team} is now paid under “{name}”.")
        card = page.get_by_role("listitem").filter(
            has=page.get_by_role("heading", name=team, exact=True))
        expect(card).to_contain_text(f"Paid under {name}")
        expect(card).to_contain_text("Over 80 hours in a 14-day period, paid as Overtime \u00d71.5")
