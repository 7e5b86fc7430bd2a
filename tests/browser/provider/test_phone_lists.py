"""The provider's lists on a phone (390x844): what the person came for — the first record — is
on the first screen, and every button and row action is at least 44 px each way."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from playwright.sync_api import expect

from app.api import models as m
from tests.browser.provider.conftest import account, arrange, now, shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")

TARGETS = """() => Array.from(document.querySelectorAll(
    'main button, main select, main input:not([type=hidden]):not([type=radio]), '
    + 'main [data-record] a, main label:has(input[type=radio]), nav.tab-bar a'))
  .filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect();
              return [e.textContent.trim().slice(0, 40) || e.outerHTML.slice(0, 60),
                      r.width, r.height]; })"""


def _request(site, email):
    zone = site.ui.config["SHIFTDESK"].zone
    first = (now() + timedelta(days=40)).astimezone(zone).date()
    start = datetime.combine(first, time(0), tzinfo=zone).astimezone(UTC)

    def make(session):
        request = m.TimeOffRequest(
            status="pending", start_date=start, end_date=start + timedelta(days=1),
            policy_id=uid("policy:pto"), provider_id=uid(f"user:{email}"), note=None,
            paid_hours=8.0, is_full_day=True)
        request.daily_hours = [m.TimeOffDay(date=datetime.combine(first, time(0), tzinfo=UTC),
                                            duration=8.0)]
        session.add(request)

    arrange(site, make)


def test_lists_put_the_first_record_on_the_first_screen(site, phone):
    if site.mode == "split":
        pytest.skip("the same markup on both servers")
    email = account(site, "Phone Lists")
    zone = site.ui.config["SHIFTDESK"].zone
    sunday = now().astimezone(zone).date()
    sunday += timedelta(days=6 - sunday.weekday())  # the last day of this week
    shift(site, email, start=datetime.combine(sunday, time(19), tzinfo=zone).astimezone(UTC),
          hours=12, break_at=None)
    shift(site, None, start=now() + timedelta(days=2), hours=8)
    _request(site, email)
    phone.sign_in(email)
    for path in ("/shifts/mine", "/shifts/mine?view=list", "/shifts/open", "/time-off"):
        phone.goto(path)
        first = phone.page.locator("[data-record]").first
        expect(first).to_be_visible()
        box = first.bounding_box()
        assert box is not None, path
        assert box["y"] < 844, path  # it starts on the first screen, before any scrolling
        small = [(name, w, h) for name, w, h in phone.page.evaluate(TARGETS)
                 if w < 44 or h < 44]
        assert not small, (path, small)
    phone.goto("/time-off/new")
    small = [(name, w, h) for name, w, h in phone.page.evaluate(TARGETS) if w < 44 or h < 44]
    assert not small, small
