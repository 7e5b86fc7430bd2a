"""The permission editor (beta) in the browser, JavaScript on and off, as the demo administrator
on the demo organisation: from the home page to Permissions, the Shift rules, the Manager's
`view Shift` rule; conditions naming a field Shift does not have are refused with that line of
the document marked; a valid change (callouts left out) is previewed for the demo manager,
Morgan Ellis (today against proposed, what they would lose) and saved. Every page on the way is
checked with axe-core (through `Browse`); at 390 px the editor is no wider than the screen.

The demo site is shared by every browser test of the worker (they run one after another), so
the journey puts the rule's conditions back as they were when it ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.api import models as m
from tests.browser.conftest import DESKTOP, Browse, open_tab

pytestmark = pytest.mark.xdist_group("browser")
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"
DEMO_MANAGER = "Morgan Ellis"


@contextmanager
def manager_shift_rule_restored(site: Any) -> Iterator[None]:
    """Put the Manager's `view Shift` rule back as it was once the block ends."""
    db = site.api.extensions["shiftdesk"].db

    def rule(session: Any) -> m.Permission:
        return session.scalars(
            select(m.Permission).join(m.RbacRole)
            .where(m.RbacRole.name == "Manager", m.Permission.action == "view",
                   m.Permission.subject == "Shift")).one()

    with db.unit_of_work() as session:
        before = rule(session).conditions
    try:
        yield
    finally:
        with db.unit_of_work(write=True) as session:
            rule(session).conditions = before


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_previews_and_saves_a_permission_change(demo_site: Any, browser: Any,
                                                      javascript: bool) -> None:
    with (manager_shift_rule_restored(demo_site),
          contextmanager(open_tab)(demo_site, browser, javascript=javascript,
                                   viewport=DESKTOP) as browse):
        browse: Browse
        browse.sign_in("admin@example.com")
        page = browse.page
        browse.click(page.get_by_role("main").get_by_role("link", name="Permissions"))
        expect(page.get_by_role("heading", name="Permissions", level=1)).to_be_visible()
        page.get_by_text("Filter by subject").click()
        page.get_by_label("Subject").select_option("Shift")
        browse.click(page.get_by_role("button", name="Show"))
        rules = page.get_by_role("table", name=re.compile("Permission rules about Shift"))
        expect(rules).to_contain_text("team is one of my teams")
        browse.click(rules.get_by_role("link", name="Edit Manager: View Shift"))
        expect(page.get_by_role("heading", name=re.compile("Manager: View Shift"))).to_be_visible()
        editor = page.get_by_label("Conditions (JSON)")

        editor.fill('{\n  "team": {"$in": "$user.teamIds"},\n  "nope": 1\n}')
        browse.click(page.get_by_role("button", name="Preview"))
        expect(page.get_by_role("alert").first).to_contain_text("unknown field 'nope'")
        expect(editor).to_have_attribute("aria-invalid", "true")
        expect(editor).to_have_accessible_description(re.compile("At /nope: unknown field"))
        lines = page.get_by_role("list", name=re.compile("line by line"))
        marked = lines.get_by_role("listitem").filter(has_text="Line 5 (/nope)")
        expect(marked).to_have_count(1)
        expect(marked).to_contain_text('"nope": 1')
        expect(marked).to_contain_text("unknown field 'nope'")
        expect(page.get_by_role("button", name="Save these conditions")).to_have_count(0)

        editor.fill('{"team": {"$in": "$user.teamIds"}, "isCallout": false}')
        page.get_by_label("Person to preview for").select_option(label=DEMO_MANAGER)
        browse.click(page.get_by_role("button", name="Preview"))
        expect(page.get_by_role("heading", name=f"Preview for {DEMO_MANAGER}")).to_be_visible()
        expect(page.get_by_role("alert")).to_contain_text(
            re.compile(rf"{DEMO_MANAGER} would lose \d+ Shift records?"))
        compare = page.get_by_role("table", name=re.compile("records Morgan Ellis could act on"))
        expect(compare).to_contain_text("Today\u2019s conditions")
        expect(compare).to_contain_text("Lost")
        expect(editor).not_to_have_attribute("aria-invalid", "true")
        if javascript:
            page.set_viewport_size({"width": 390, "height": 844})
            width, screen = page.evaluate(WIDTH)
            assert width <= screen
            page.set_viewport_size(DESKTOP)

        browse.click(page.get_by_role("button", name="Save these conditions"))
        expect(page.get_by_role("status").filter(has_text="Saved")).to_contain_text(
            "Saved. The Manager rule\u2019s new conditions apply")
        expect(page.get_by_role("main")).to_contain_text(
            "team is one of my teams and isCallout is false")
