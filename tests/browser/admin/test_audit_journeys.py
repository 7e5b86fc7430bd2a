"""The audit trail in the browser, JavaScript on and off: the manager edits a shift in the team
schedule's editor, then the administrator opens the same shift, follows its "History" link and
reads the change (who, and the note before and after) on /admin/audit; from there "All changes"
and "Open this shift" lead back and forth. Every page on the way is checked with axe-core
(through `Browse`); at 390 px the trail is no wider than the screen."""

from __future__ import annotations

import re
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.conftest import DESKTOP, Browse, open_tab
from tests.factories import make_shift, uid

pytestmark = pytest.mark.xdist_group("browser-manager")
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def _arrange_shift(site: Any, day: int) -> Any:
    """An ED shift of Pat Provider on 2028-02-`day` from 7 AM New York time (no one wrote it
    through the API, so it has no history yet)."""
    with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        shift = make_shift(
            session, provider=session.get(m.Provider, uid("user:provider@example.com")),
            team=session.get(m.Team, uid("team:Emergency")),
            role=session.get(m.Role, uid("role:Emergency:Registered Nurse")),
            start=datetime(2028, 2, day, 11, tzinfo=UTC), hours=12, break_at=6)
        session.flush()
        return shift.id


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_follows_a_shifts_history_after_the_manager_edits_it(site: Any, browser: Any,
                                                                    javascript: bool) -> None:
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    day = (14 if javascript else 15) + (0 if site.mode == "embedded" else 2)
    shift_id = _arrange_shift(site, day)
    note = f"Cover triage ({site.mode}, {'js' if javascript else 'no-js'})"

    with contextmanager(open_tab)(site, browser, javascript=javascript,
                                  viewport=DESKTOP) as manager:
        manager: Browse
        manager.sign_in("manager@example.com", start="/manage/schedule?week=2028-02-14")
        page = manager.page
        manager.click(page.locator(f"#shift-{shift_id}"))
        editor = page.get_by_role("region", name="Shift editor")
        editor.get_by_label("Note for the provider").fill(note)
        # The manager may not read the trail: no History link for them.
        expect(editor.get_by_role("link", name=re.compile(r"^History"))).to_have_count(0)
        manager.click(editor.get_by_role("button", name="Save shift"))
        expect(page.locator("#messages")).to_contain_text("Saved")

    with contextmanager(open_tab)(site, browser, javascript=javascript,
                                  viewport=DESKTOP) as admin:
        admin: Browse
        admin.sign_in("admin@example.com", start="/manage/schedule/shifts/"
                      f"{shift_id}/edit?team={uid('team:Emergency')}&week=2028-02-14")
        page = admin.page
        editor = page.get_by_role("region", name="Shift editor")
        admin.click(editor.get_by_role("link", name=re.compile(r"^History")))
        expect(page.get_by_role("heading", name="Audit trail", level=1)).to_be_visible()
        assert "subject=Shift" in admin.path()
        events = page.get_by_role("listitem").filter(
            has=page.get_by_role("heading", name="Changed shift"))
        expect(events).to_have_count(1)
        event = events.first
        expect(event).to_contain_text("Morgan Manager")
        row = event.get_by_role("row").filter(
            has=page.get_by_role("rowheader", name="Note", exact=True))
        expect(row.get_by_role("cell").nth(1)).to_have_text(note)
        expect(page.get_by_role("link", name=re.compile(r"^Record id: .*remove this filter"))
               ).to_be_visible()
        if javascript:
            page.set_viewport_size({"width": 390, "height": 844})
            width, screen = page.evaluate(WIDTH)
            assert width <= screen
            page.set_viewport_size(DESKTOP)

        admin.click(event.get_by_role("link", name="Open this shift"))
        expect(page.get_by_role("region", name="Shift editor")).to_be_visible()
        expect(page.get_by_label("Note for the provider")).to_have_value(note)
