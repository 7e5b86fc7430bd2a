"""What staff see of time off must be true, on a phone, with and without JavaScript: a two-day
request reads as two days, approved time off shows on My shifts, a duplicate request is refused
on the form, and a provider asks to cancel approved leave while their manager decides."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.provider.conftest import account, arrange, now
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")
JS = pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
DASH = "\u2013"


def _leave(site, email: str, first: date, *, days: int = 1, status: str = "approved",
           ) -> uuid.UUID:
    """A full-day PTO request of `email` over `days` local days from `first`."""
    def make(session):
        start = datetime.combine(first, time(0), tzinfo=ZONE).astimezone(UTC)
        end = datetime.combine(first + timedelta(days=days), time(0), tzinfo=ZONE)
        request = m.TimeOffRequest(
            status=status, start_date=start, end_date=end.astimezone(UTC),
            policy_id=uid("policy:pto"), provider_id=uid(f"user:{email}"), note=None,
            paid_hours=8.0 * days, is_full_day=True)
        session.add(request)
        session.flush()
        return request.id

    return arrange(site, make)


def _day(offset: int) -> date:
    return (now() + timedelta(days=offset)).astimezone(ZONE).date()


def _said(day: date) -> str:
    return f"{day:%a} {day.day}"


def _fits(browse) -> None:
    width = browse.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{browse.path()} is {width} px wide"


@JS
def test_two_day_request_reads_as_two_days(site, phones, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = phones(javascript=javascript)
    email = account(site, "Two Days")
    first, last = _day(33), _day(34)
    browse.sign_in(email, start="/time-off/new")
    page = browse.page
    page.get_by_label("Kind of time off").select_option(label="Paid time off")
    page.get_by_label("First day").fill(first.isoformat())
    page.get_by_label("Last day").fill(last.isoformat())
    browse.click(page.get_by_role("button", name="Send request"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Time-off request")
    main = page.get_by_role("main")
    expect(main).to_contain_text(f"{_said(last)} {last:%b}")
    expect(main).to_contain_text("· 2 days")
    _fits(browse)
    browse.click(page.get_by_role("link", name="Back to time off"))
    request = page.get_by_role("listitem").filter(has_text="Paid time off")
    expect(request).to_contain_text(f"{_said(first)}")
    expect(request).to_contain_text(f"{DASH} {_said(last)}")
    expect(request).to_contain_text("· 2 days")


@JS
def test_approved_time_off_shows_on_my_shifts(site, phones, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = phones(javascript=javascript)
    email = account(site, "On Leave")
    first = _day(12)
    _leave(site, email, first, days=2)
    browse.sign_in(email, start=f"/shifts/mine?week={first.isoformat()}")
    page = browse.page
    day = page.get_by_role("listitem").filter(
        has=page.get_by_role("heading", name=f"{_said(first)} {first:%b}"))
    expect(day).to_contain_text("Time off · Paid time off")
    expect(day).not_to_contain_text("Free")
    _fits(browse)
    browse.click(page.get_by_role("link", name="List", exact=True))
    expect(page.get_by_role("main")).to_contain_text("Time off · Paid time off")
    expect(page.get_by_role("main")).to_contain_text("· 2 days")


@JS
def test_duplicate_request_is_refused_on_the_form(site, phones, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough for a refused form")
    browse = phones(javascript=javascript)
    email = account(site, "Asks Twice")
    day = _day(21)
    _leave(site, email, day, status="pending")
    browse.sign_in(email, start="/time-off/new")
    page = browse.page
    page.get_by_label("Kind of time off").select_option(label="Paid time off")
    page.get_by_label("First day").fill(day.isoformat())
    page.get_by_label("Last day").fill(day.isoformat())
    page.get_by_label("Note for your manager (optional)").fill("Second try")
    browse.click(page.get_by_role("button", name="Send request"))
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("You already asked for time off on these days")
    expect(alert).to_contain_text(f"{_said(day)} {day:%b}")
    expect(alert).to_contain_text("waiting for your manager")
    expect(page.get_by_label("First day")).to_have_value(day.isoformat())
    expect(page.get_by_label("Note for your manager (optional)")).to_have_value("Second try")
    if not javascript:  # htmx swaps the form alone; the whole page says Error in its title
        assert page.title().startswith("Error:")
    _fits(browse)


@JS
def test_provider_asks_to_cancel_and_the_manager_decides(site, phones, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    name = f"Changed Plans {'JS' if javascript else 'Plain'}"
    email = account(site, name)
    first = _day(45 if javascript else 47)
    kept = _leave(site, email, first)
    dropped = _leave(site, email, first + timedelta(days=7))
    pat = phones(javascript=javascript)
    pat.sign_in(email, start="/time-off")
    page = pat.page
    for request_id in (kept, dropped):
        pat.goto(f"/time-off/{request_id}")
        pat.click(page.get_by_role("link", name="Ask to cancel"))
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Ask your manager to cancel this leave?")
        expect(page.get_by_role("main")).to_contain_text("your manager decides")
        _fits(pat)
        pat.click(page.get_by_role("button", name="Ask to cancel"))
        expect(page.get_by_role("main")).to_contain_text(
            "Cancellation requested \u2014 waiting for your manager")
        expect(page.get_by_role("link", name="Ask to cancel")).to_have_count(0)

    boss = phones(javascript=javascript)
    boss.sign_in("manager@example.com", start="/manage/time-off")
    queue = boss.page
    boss.click(queue.get_by_role("link", name="Cancellation requests"))
    expect(queue.get_by_label("Status")).to_have_value("cancellation")
    row = queue.locator(f"#request-{kept}")
    expect(row).to_contain_text("Asks to cancel")
    boss.click(row.get_by_role("link", name="Review and decide"))
    row.get_by_label("Why it stays (optional, the provider sees it)").fill(
        "Nobody else can cover that day")
    _fits(boss)
    boss.click(row.get_by_role("button", name="Keep it"))
    expect(queue.locator("#messages")).to_contain_text(f"Kept {name}'s time off")
    other = queue.locator(f"#request-{dropped}")
    if not javascript:
        boss.goto("/manage/time-off?status=cancellation")
    boss.click(other.get_by_role("link", name="Review and decide"))
    boss.click(other.get_by_role("button", name="Cancel the leave"))
    expect(queue.locator("#messages")).to_contain_text(f"Cancelled {name}'s time off")

    pat.goto(f"/time-off/{kept}")
    expect(page.get_by_role("main")).to_contain_text(
        "Your manager kept this leave: Nobody else can cover that day")
    pat.goto("/time-off")
    expect(page.locator(f"#request-{dropped}")).to_contain_text("Cancelled")
