"""Time-off balances in the browser, JavaScript on and off: the provider sees each balance and
opens its history, the request form shows the balance before and after, and a request beyond
the balance is refused inline before anything is sent."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api import models as m
from tests.browser.conftest import Site
from tests.browser.provider.conftest import account, arrange, now
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-provider")
ZONE = ZoneInfo("America/New_York")
_COUNTER = itertools.count(1)


def _vacation(site: Site, email: str, held: str) -> str:
    """A policy keeping a balance in hours, `email` its member with `held` accrued a month
    ago; returns the policy's name."""
    name = f"Vacation {next(_COUNTER)}-{uuid.uuid4().hex[:4]}"
    today = datetime.now(UTC).astimezone(ZONE).date()

    def make(session: Session) -> None:
        person = session.get(m.Provider, uid(f"user:{email}"))
        policy = m.TimeOffPolicy(id=uuid.uuid4(), type="paid-time-off", name=name,
                                 description=None, accrual_unit="hours")
        policy.members = [person]
        session.add(policy)
        session.flush()
        session.add(m.TimeOffAccrualSettings(policy_id=policy.id, method="per_period", rate="8",
                                             start_date=today - timedelta(days=60),
                                             period="monthly"))
        value = Fraction(held)
        session.add(m.TimeOffLedgerEntry(
            provider_id=person.id, policy_id=policy.id, kind="accrual",
            effective_date=today - timedelta(days=30), amount_numerator=value.numerator,
            amount_denominator=value.denominator, source_key=f"browser:{policy.id}"))

    arrange(site, make)
    return name


def _requests(site: Site, email: str) -> int:
    return arrange(site, lambda s: s.scalar(select(func.count()).select_from(
        m.TimeOffRequest).where(m.TimeOffRequest.provider_id == uid(f"user:{email}"))))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_request_beyond_the_balance_is_refused_inline(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Balance Asker")
    policy = _vacation(site, email, "16")
    browse.sign_in(email, start="/time-off")
    page = browse.page
    balances = page.get_by_role("region", name="Your balances")
    expect(balances).to_contain_text(policy)
    expect(balances).to_contain_text("16 hours")
    browse.click(balances.get_by_text("History"))
    expect(balances.get_by_role("table")).to_contain_text("Accrued")
    expect(balances.get_by_role("table")).to_contain_text("+16 hours")
    if javascript:  # on a phone the open history fits the screen's width
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1280, "height": 900})

    browse.click(page.get_by_role("link", name="Ask for time off"))
    day = (now() + timedelta(days=20)).astimezone(ZONE).date()
    page.get_by_label("Kind of time off").select_option(label=policy)
    page.get_by_label("First day").fill(day.isoformat())
    page.get_by_label("Last day").fill((day + timedelta(days=2)).isoformat())
    if javascript:  # the balance before and after follows the form as it changes
        page.get_by_label("Last day").dispatch_event("change")
        expect(page.locator("#balance-preview-slot")).to_contain_text(
            "balance 16 hours → -8 hours after this request (24 hours)")
    browse.click(page.get_by_role("button", name="Send request"))
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("This needs 24 hours")
    expect(alert).to_contain_text("16 hours available")
    expect(page.locator("#balance-preview-slot")).to_contain_text("→ -8 hours")
    assert _requests(site, email) == 0

    page.get_by_label("Last day").fill((day + timedelta(days=1)).isoformat())
    browse.click(page.get_by_role("button", name="Send request"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Time-off request")
    assert _requests(site, email) == 1
