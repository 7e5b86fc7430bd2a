"""The administrator's labels in the browser, JavaScript on and off, on the demo organisation:
from the home page to Settings and Labels, a new label refused without a name and then
created, renamed and recoloured, and deleted after the confirmation that says where it is in
use (the demo's "Charge" label is on shifts of several teams). Every page on the way is
checked with axe-core (through `Browse`); at 390 px the list is no wider than the screen."""

from __future__ import annotations

import re
import uuid
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, Browse, open_tab

pytestmark = pytest.mark.xdist_group("browser")
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_creates_edits_and_deletes_a_label(demo_site: Any, browser: Any,
                                                 javascript: bool) -> None:
    name = f"Triage lead {uuid.uuid4().hex[:4]}"
    renamed = f"{name} (nights)"
    with contextmanager(open_tab)(demo_site, browser, javascript=javascript,
                                  viewport=DESKTOP) as browse:
        browse: Browse
        browse.sign_in("admin@example.com")
        page = browse.page
        browse.click(page.get_by_role("main").get_by_role("link", name="Settings"))
        expect(page.get_by_role("heading", name="Settings", level=1)).to_be_visible()
        browse.click(page.get_by_role("main").get_by_role("link", name="Labels"))
        expect(page.get_by_role("heading", name="Labels", level=1)).to_be_visible()

        browse.click(page.get_by_role("link", name="New label"))
        page.get_by_label("Description").fill("Leads triage at the front desk")
        browse.click(page.get_by_role("button", name="Create label"))
        expect(page.get_by_role("alert")).to_contain_text("Name: Enter a name.")
        expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
        expect(page.get_by_label("Description")).to_have_value("Leads triage at the front desk")

        page.get_by_label("Name").fill(name)
        page.get_by_label("Colour").fill("#17becf")
        browse.click(page.get_by_role("button", name="Create label"))
        expect(page.get_by_role("status")).to_contain_text(f"Label “{name}” created.")
        card = page.get_by_role("listitem").filter(
            has=page.get_by_role("heading", name=name, exact=True))
        expect(card).to_contain_text("#17BECF")
        expect(card).to_contain_text("Leads triage at the front desk")
        if javascript:
            page.set_viewport_size({"width": 390, "height": 844})
            width, screen = page.evaluate(WIDTH)
            assert width <= screen
            page.set_viewport_size(DESKTOP)

        browse.click(card.get_by_role("link", name=f"Edit {name}"))
        expect(page.get_by_role("heading", name=f"Edit {name}")).to_be_visible()
        expect(page.get_by_label("Colour")).to_have_value("#17becf")
        page.get_by_label("Name").fill(renamed)
        page.get_by_label("Colour").fill("#2ca02c")
        browse.click(page.get_by_role("button", name="Save label"))
        expect(page.get_by_role("status")).to_contain_text(f"Label “{renamed}” saved.")
        card = page.get_by_role("listitem").filter(
            has=page.get_by_role("heading", name=renamed, exact=True))
        expect(card).to_contain_text("#2CA02C")

        browse.click(card.get_by_role("link", name=f"Delete {renamed}"))
        expect(page.get_by_role("heading", name=f"Delete “{renamed}”?")).to_be_visible()
        expect(page.get_by_role("main")).to_contain_text("No shift carries this label.")
        browse.click(page.get_by_role("button", name="Delete label"))
        expect(page.get_by_role("status")).to_contain_text(f"Label “{renamed}” deleted.")
        expect(page.get_by_role("heading", name=renamed, exact=True)).to_have_count(0)


def test_delete_confirmation_says_where_a_label_is_in_use(demo_site: Any, browser: Any) -> None:
    with contextmanager(open_tab)(demo_site, browser, viewport=DESKTOP) as browse:
        browse: Browse
        browse.sign_in("admin@example.com")
        page = browse.page
        browse.goto("/admin/settings/labels")
        browse.click(page.get_by_role("link", name="Delete Charge", exact=True))
        expect(page.get_by_role("heading", name="Delete “Charge”?")).to_be_visible()
        usage = page.get_by_role("region", name="Where it is in use")
        expect(usage).to_contain_text(re.compile(r"\d+ shifts? carr(y|ies) this label, \d+ of "
                                                 r"them not yet ended"))
        teams = usage.get_by_role("list", name="Shifts with this label by team")
        expect(teams.get_by_role("listitem").first).to_have_text(re.compile(r".+: \d+ shifts?$"))
        browse.click(page.get_by_role("link", name="Keep it"))
        expect(page.get_by_role("heading", name="Charge", exact=True)).to_be_visible()
