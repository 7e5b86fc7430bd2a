"""Journeys of a charge nurse through the time-off queue, as manager@example.com."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.browser.manager.conftest import (
    add_request,
    add_shift,
    client_as,
    open_copies,
    shift_row,
)

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

# Each test owns its dates (local midnights in New York, winter: UTC-5).
DAYS = {"delete": 4, "calloutWithOpen": 5, "keep": 6, "reject": 7, "bulk": 8, "nojs": 11,
        "forged": 12, "phone": 13}


def day(key: str) -> datetime:
    return datetime(2027, 1, DAYS[key], 5, 0, tzinfo=UTC)


def _queue_for(tab, key: str) -> None:
    date = day(key).date().isoformat()
    tab.goto(f"/manage/time-off?start={date}&end={date}")


@pytest.mark.split_mode
@pytest.mark.scaled_mode
@pytest.mark.parametrize("strategy", ["delete", "calloutWithOpen", "keep"])
def test_approve_with_a_conflict_strategy(site, tab, arrange, artifacts, strategy):
    if site.mode != "embedded" and strategy != "calloutWithOpen":
        pytest.skip("one strategy is enough to prove the split and scaled modes")
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
                    full_page=True, caret="initial")
    tab.click(row.get_by_role("button", name="Approve", exact=True))
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
    monday = (start - timedelta(days=start.weekday())).date().isoformat()
    tab.goto(f"/manage/schedule?week={monday}")
    chip = page.locator(f"#shift-{shift_id}")
    if strategy == "delete":
        expect(chip).to_have_count(0)
    elif strategy == "calloutWithOpen":
        expect(chip).to_contain_text("Callout")
        expect(page.get_by_role("row", name="Open shifts")).to_contain_text("12:00 PM")
    else:
        expect(chip).to_be_visible()
    expect(page.get_by_role("row", name="Pat Provider")).to_contain_text("Time off")


def test_reject_with_a_reason_reaches_the_provider(site, tab, second_tab, arrange):
    if site.mode == "split":
        pytest.skip("the decision forms are proven in split mode by the approve journey")
    request_id = arrange(lambda s: add_request(s, start=day("reject"), note="Concert"))
    tab.sign_in("manager@example.com", start="/manage/time-off")
    _queue_for(tab, "reject")
    row = tab.page.locator(f"#request-{request_id}")
    tab.click(row.get_by_role("link", name="Review and decide"))
    tab.click(row.get_by_role("button", name="Decline"))
    expect(row.get_by_text("Tell the provider why.").first).to_be_visible()
    row.get_by_label("Reason for declining").fill("Two nurses already off that day")
    tab.click(row.get_by_role("button", name="Decline"))
    expect(row.get_by_text("Declined", exact=True)).to_be_visible()
    seen = client_as(site, "provider@example.com").get_time_off_request(request_id)
    assert seen.status == "rejected"
    assert seen.rejection_reason == "Two nurses already off that day"
    pat = second_tab
    pat.sign_in("provider@example.com", start=f"/time-off/{request_id}")
    expect(pat.page.get_by_role("main")).to_contain_text("Two nurses already off that day")


def test_decisions_work_without_javascript(site, no_js_tab, arrange):
    if site.mode == "split":
        pytest.skip("no-JS journeys run in embedded mode")
    start = day("nojs")
    request_id = arrange(lambda s: add_request(s, start=start, note="No JS"))
    shift_id = arrange(lambda s: add_shift(s, start=start + timedelta(hours=12)))
    tab = no_js_tab
    tab.sign_in("manager@example.com", start="/manage/time-off")
    _queue_for(tab, "nojs")
    tab.click(tab.page.get_by_role("link", name="Review and decide"))
    row = tab.page.locator(f"#request-{request_id}")
    row.get_by_label("Delete the shifts", exact=True).check()
    tab.click(row.get_by_role("button", name="Approve", exact=True))
    expect(tab.page.locator("#messages")).to_contain_text("shifts deleted")
    assert shift_row(site, shift_id) is None
    other = arrange(lambda s: add_request(s, start=start + timedelta(days=1), note="No JS 2"))
    tab.goto(f"/manage/time-off/{other}")
    row = tab.page.locator(f"#request-{other}")
    row.get_by_label("Reason for declining").fill("Unit is short that day")
    tab.click(row.get_by_role("button", name="Decline"))
    expect(tab.page.locator("#messages")).to_contain_text("Declined Pat Provider's time off")
    seen = client_as(site, "provider@example.com").get_time_off_request(other)
    assert seen.rejection_reason == "Unit is short that day"


def test_decide_on_a_phone(site, phone, arrange):
    if site.mode == "split":
        pytest.skip("phone journeys run in embedded mode")
    start = day("phone")
    request_id = arrange(lambda s: add_request(s, start=start, note="Phone"))
    phone.sign_in("manager@example.com", start="/manage/time-off")
    _queue_for(phone, "phone")
    row = phone.page.locator(f"#request-{request_id}")
    phone.click(row.get_by_role("link", name="Review and decide"))
    button = row.get_by_role("button", name="Approve", exact=True)
    phone.click(button)
    expect(row.get_by_text("Approved", exact=True)).to_be_visible()
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390


def test_bulk_approve_and_forged_decision(site, tab, arrange):
    if site.mode == "split":
        pytest.skip("covered in embedded mode")
    clean = arrange(lambda s: add_request(s, start=day("bulk"), note="Bulk"))
    tab.sign_in("manager@example.com", start="/manage/time-off")
    _queue_for(tab, "bulk")
    tab.page.get_by_label("Select Pat Provider's request for bulk approval").check()
    tab.click(tab.page.get_by_role("button", name="Approve selected"))
    expect(tab.page.locator("#messages")).to_contain_text("Approved 1 request.")
    assert client_as(site, "provider@example.com").get_time_off_request(clean).status \
        == "approved"
    icu = arrange(lambda s: add_request(s, start=day("forged"), provider="icu.nurse@example.com"))
    tab.goto("/manage/time-off?status=any")
    expect(tab.page.locator(f"#request-{icu}")).to_have_count(0)
    token = tab.page.locator("input[name=csrf_token]").first.get_attribute("value")
    answer = tab.page.request.post(f"{site.url}/manage/time-off/{icu}/approve", form={
        "csrf_token": token, "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off"})
    assert answer.status == 403
    assert '<div class="problem" role="alert">' in answer.text()
    assert "Time-off queue" in answer.text()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_reversed_filter_dates_keep_the_page(site, phones, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run in embedded mode")
    tab = phones(javascript=javascript)
    tab.sign_in("manager@example.com", start="/manage/time-off")
    page = tab.page
    page.get_by_text("Filter", exact=True).click()  # the filters fold away on a phone
    page.get_by_label("Status").select_option(label="Any status")
    page.get_by_label("From").fill("2027-02-10")
    page.get_by_label("To").fill("2027-02-01")
    tab.click(page.get_by_role("button", name="Show requests"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Time-off queue")
    expect(page.get_by_role("alert")).to_contain_text("can't be before the From date")
    expect(page.get_by_label("From")).to_have_value("2027-02-10")
    expect(page.get_by_label("To")).to_have_value("2027-02-01")
    expect(page.get_by_label("To")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Status")).to_have_value("any")
    expect(page.get_by_role("main")).not_to_contain_text("endDate")
    expect(page.get_by_text("Fix the filters above to see requests.")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
