"""The time-off queue on a phone (issue 25), and at 1280 px, as manager@example.com, with and
without JavaScript:
requests come first as cards (who, when, how long each waited, how soon it starts), the filters
fold away under "Filter" with the active ones as chips, and a manager approves and declines
(with a reason) from a card, the two buttons side by side and the reason under both."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tests.browser.lists import SCREEN_IDS, SCREENS, first_record_top, screen, too_small
from tests.browser.manager.conftest import add_request, client_as

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

SCREEN = pytest.mark.parametrize(("size", "javascript"), SCREENS, ids=SCREEN_IDS)


def only_once(site, size, javascript) -> None:
    """The split mode is proven by the phone with JavaScript; the rest run embedded."""
    if site.mode == "split" and (size["width"] != 390 or not javascript):
        pytest.skip("proven in embedded mode")


def day(number: int) -> datetime:
    """A local midnight in New York in April 2027 (EDT, UTC-4): these tests' own days."""
    return datetime(2027, 4, number, 4, 0, tzinfo=UTC)


@SCREEN
def test_queue_shows_cards_first_with_folded_filters_and_chips(site, browser, arrange, size,
                                                               javascript):
    only_once(site, size, javascript)
    with screen(site, browser, size, javascript) as tab:
        _queue_cards_and_chips(tab, arrange, 20 + SCREENS.index((size, javascript)))


def _queue_cards_and_chips(tab, arrange, number: int) -> None:
    start = day(number)
    request_id = arrange(lambda s: add_request(s, start=start, note=f"Card {number}"))
    size = tab.page.viewport_size
    date = start.date().isoformat()
    tab.sign_in("manager@example.com", start=f"/manage/time-off?start={date}&end={date}")
    page = tab.page
    card = page.locator(f"#request-{request_id}")
    expect(card).to_contain_text("Pat Provider")
    expect(card).to_contain_text("Waiting since today")
    expect(card).to_contain_text(re.compile(r"Starts in \d+ days"))
    expect(card.get_by_role("link", name=re.compile("^Review and decide"))).to_be_visible()
    assert first_record_top(page) < size["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    # The filters are folded away; the active ones show as chips.
    expect(page.get_by_label("Status")).to_be_hidden()
    chips = page.get_by_role("list", name="Active filters")
    expect(chips.get_by_role("link")).to_have_count(3)  # From, To and "Clear all"
    expect(chips.get_by_role("link", name=re.compile(r"^From: .*remove this filter"))) \
        .to_be_visible()
    assert too_small(page) == []

    # Filtering through the folded form adds a chip.
    page.get_by_text("Filter", exact=True).click()
    page.get_by_label("Status").select_option(label="Any status")
    tab.click(page.get_by_role("button", name="Show requests"))
    expect(chips.get_by_role("link", name=re.compile("^Status: Any status"))).to_be_visible()
    expect(page.get_by_label("Status")).to_be_hidden()  # folded again on the new page
    assert too_small(page) == []

    # Removing one chip removes that one filter only.
    tab.click(chips.get_by_role("link", name=re.compile("^To: ")))
    expect(page).not_to_have_url(re.compile(f"end={date}"))
    expect(page).to_have_url(re.compile(f"start={date}"))
    expect(chips.get_by_role("link", name=re.compile("^To: "))).to_have_count(0)
    expect(chips.get_by_role("link", name=re.compile("^Status: Any status"))).to_be_visible()
    expect(page.locator(f"#request-{request_id}")).to_be_visible()
    tab.click(chips.get_by_role("link", name="Clear all"))
    expect(page.get_by_role("list", name="Active filters")).to_have_count(0)


@SCREEN
def test_approve_and_decline_with_a_reason_from_cards(site, browser, arrange, size, javascript):
    only_once(site, size, javascript)
    with screen(site, browser, size, javascript) as tab:
        _approve_and_decline(site, tab, arrange, 2 + 4 * SCREENS.index((size, javascript)))


def _approve_and_decline(site, tab, arrange, first: int) -> None:
    approve = arrange(lambda s: add_request(s, start=day(first), note="Approve me"))
    decline = arrange(lambda s: add_request(s, start=day(first + 2), note="Decline me"))
    span = f"start={day(first).date().isoformat()}&end={day(first + 2).date().isoformat()}"
    tab.sign_in("manager@example.com", start=f"/manage/time-off?{span}")
    page = tab.page

    card = page.locator(f"#request-{approve}")
    tab.click(card.get_by_role("link", name=re.compile("^Review and decide")))
    card = page.locator(f"#request-{approve}")
    approve_button = card.get_by_role("button", name="Approve", exact=True)
    decline_button = card.get_by_role("button", name="Decline", exact=True)
    reason = card.get_by_label("Reason for declining")
    a, d, r = approve_button.bounding_box(), decline_button.bounding_box(), reason.bounding_box()
    assert a is not None
    assert d is not None
    assert r is not None
    assert abs(a["y"] - d["y"]) < 1  # side by side …
    assert a["x"] < d["x"]  # … Approve first
    assert r["y"] >= a["y"] + a["height"]  # the reason sits under both, not between them
    assert too_small(page) == []
    tab.click(approve_button)
    expect(page.locator("#messages")).to_contain_text("Approved Pat Provider's time off")

    card = page.locator(f"#request-{decline}")
    tab.click(card.get_by_role("link", name=re.compile("^Review and decide")))
    card = page.locator(f"#request-{decline}")
    tab.click(card.get_by_role("button", name="Decline", exact=True))
    expect(card.get_by_role("alert")).to_contain_text("Tell the provider why.")
    card.get_by_label("Reason for declining").fill("Three nurses already off")
    tab.click(card.get_by_role("button", name="Decline", exact=True))
    expect(page.locator("#messages")).to_contain_text("Declined Pat Provider's time off")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]

    pat = client_as(site, "provider@example.com")
    assert pat.get_time_off_request(approve).status == "approved"
    declined = pat.get_time_off_request(decline)
    assert declined.status == "rejected"
    assert declined.rejection_reason == "Three nurses already off"
