"""A swap the coverage strip can see: a nurse whose day off was approved while she stayed on the
schedule (the manager chose `keep`) gives that shift away, and once the manager approves the
handover the hours she could not work count again on the team schedule's coverage strip. With
and without JavaScript.

A swap keeps each shift's role and times, so the strip moves only when the person leaving the
shift could not have worked it: her approved time off made those hours count for nobody, and
the colleague who takes it is free."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.provider import swap_steps
from tests.browser.provider.conftest import account, arrange, now, shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")
NURSE = uid("role:Emergency:Registered Nurse")


def _local(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), ZONE).astimezone(UTC)


def _cell(page, day: date, hour: int) -> str:
    """What the nurses' strip says to a screen reader of `hour` o'clock on `day`."""
    strip = page.locator("#coverage table").filter(
        has=page.locator("caption", has_text=re.compile("^Registered Nurse:")))
    row = strip.locator("tbody tr").nth(day.weekday())
    return row.locator("td").nth(hour).inner_text()


def _scheduled(said: str) -> int:
    found = re.search(r"(\d+) scheduled", said)
    assert found, said
    return int(found.group(1))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_given_away_shift_counts_again_once_its_new_nurse_is_approved(
        site, tab, no_js_tab, javascript):
    if site.mode == "split" and not javascript:
        pytest.skip("no-JS journeys run on the embedded server")
    browse = tab if javascript else no_js_tab
    page = browse.page
    suffix = "Js" if javascript else "Nojs"
    lister, taker = (account(site, f"Cover {who} {suffix}") for who in ("Lister", "Taker"))
    # A day of its own for each run, far from the other journeys' shifts.
    day = (now() + timedelta(days=40 if javascript else 47)).astimezone(ZONE).date()
    listed = shift(site, lister, start=_local(day, 13), hours=8)

    def demand_and_leave(session):
        session.add(m.DemandForecastRow(role_id=NURSE, start_date=_local(day, 13),
                                        end_date=_local(day, 21), demand=3))
        session.add(m.TimeOffRequest(
            status="approved", start_date=_local(day, 0),
            end_date=datetime.combine(day + timedelta(days=1), time(0), ZONE).astimezone(UTC),
            policy_id=uid("policy:pto"), provider_id=uid(f"user:{lister}"), note="Family",
            paid_hours=8.0, is_full_day=True, conflict_resolution="keep"))
    arrange(site, demand_and_leave)

    week = f"/manage/schedule?view=week&week={day - timedelta(days=day.weekday())}"
    browse.sign_in("manager@example.com", start=week)
    before = _cell(page, day, 13)
    assert "3 needed" in before, before
    browse.sign_out()

    swap_steps.offer(browse, lister, listed, "On leave that day")

    browse.sign_in(taker, start="/swaps")
    offer = page.get_by_role("listitem").filter(has_text="On leave that day")
    browse.click(offer.get_by_role("button", name="Apply"))
    expect(page.get_by_role("status")).to_contain_text("You applied for")
    browse.sign_out()

    swap_steps.accept(browse, lister)

    browse.sign_in("manager@example.com", start=week)
    assert _cell(page, day, 13) == before  # accepted, not yet approved: nothing moves
    browse.goto("/manage/swaps")
    card = page.get_by_role("listitem").filter(has_text="Cover Lister")
    browse.click(card.get_by_role("button", name="Approve"))
    expect(page.get_by_role("status")).to_contain_text("Approved.")

    browse.goto(week)
    after = _cell(page, day, 13)
    assert _scheduled(after) == _scheduled(before) + 1, (before, after)
    expect(page.locator(f"#shift-{listed}").locator("xpath=ancestor::tr")).to_contain_text(
        "Cover Taker")
    browse.sign_out()
