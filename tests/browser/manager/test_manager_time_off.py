"""Journeys of a charge nurse through the time-off queue, as manager@example.com."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.browser.manager.conftest import (
    add_request,
    add_shift,
    open_copies,
    shift_row,
)

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

# Each test owns its dates (local midnights in New York, winter: UTC-5).
DAYS = {"delete": 4, "calloutWithOpen": 5, "keep": 6, "reject": 7, "bulk": 8, "nojs": 11,
        "forged": 12}


def day(key: str) -> datetime:
    return datetime(2027, 1, DAYS[key], 5, 0, tzinfo=UTC)


def _queue_for(tab, key: str) -> None:
    date = day(key).date().isoformat()
    tab.goto(f"/manage/time-off?start={date}&end={date}")


@pytest.mark.parametrize("strategy", ["delete", "calloutWithOpen", "keep"])
def test_approve_with_a_conflict_strategy(site, tab, arrange, artifacts, strategy):
    if site.mode == "split" and strategy != "calloutWithOpen":
        pytest.skip("one strategy is enough to prove the split mode")
    start = day(strategy)
    request_id = arrange(lambda s: add_request(s, start=start, note=f"Trip {strategy}"))
    shift_start = start + timedelta(hours=12)
    shift_id = arrange(lambda s: add_shift(s, start=shift_start))
    tab.sign_in("manager@example.com", start="/manage/time-off")
    _queue_for(tab, strategy)
    page = tab.page
    row = page.locator(f"#request-{request_id}")
    expect(row.get_by_text("1 shift overlap")).to_be_visible()
    badge = page.locator("#pending-count")
    before = int(badge.inner_text().split()[0])
    tab.click(row.get_by_role("link", name="Review and decide"))
    expect(row.get_by_role("heading", name="Shifts this request overlaps")).to_be_visible()
    expect(row.get_by_text("1 shift deleted; nobody is asked to cover.")).to_be_visible()
    labels = {"delete": "Delete the shifts", "calloutWithOpen":
              "Mark as callouts and post open copies", "keep": "Keep the shifts"}
    row.get_by_label(labels[strategy], exact=True).check()
    page.screenshot(path=artifacts / f"manager-time-off-{strategy}-{site.mode}.png",
                    full_page=True)
    tab.click(row.get_by_role("button", name="Approve"))
    expect(row.get_by_text("Approved", exact=True)).to_be_visible()
    expect(badge).to_have_text(f"{before - 1} pending")
    expect(page.locator("#messages")).to_contain_text("Approved Pat Provider's time off")
    after = shift_row(site, shift_id)
    if strategy == "delete":
        assert after is None
    elif strategy == "calloutWithOpen":
        assert after is not None
        assert after.is_callout
        assert open_copies(site, shift_start) >= 1
    else:
        assert after is not None
        assert not after.is_callout
