"""What staff see must be true, in the browser at 390 px, with JavaScript on and off: an open
shift of a role the nurse does not hold offers no Claim (and the API refuses it), a night shift's
punches stay under the day it started with no "no shift" warning, and the team schedule's open
shift row holds that team's open shifts only."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.api import models as m
from app.api.demo.state import demo_id
from app.api.tokens import mint_access_token
from app.client import ApiClient, Conflict, build_http
from tests.browser.conftest import PHONE, Browse, Site, open_tab, screen_options
from tests.browser.manager.conftest import add_shift
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser")
expect = pytest.importorskip("playwright.sync_api").expect
CNA = "Certified Nursing Assistant"


def _phone(site: Site, browser: Any, javascript: bool) -> Iterator[Browse]:
    yield from open_tab(site, browser, javascript=javascript, **screen_options(PHONE))


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def demo_phone(request, demo_site, browser) -> Iterator[Browse]:
    """A phone on the demo organisation, JavaScript on or off."""
    yield from _phone(demo_site, browser, request.param)


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def site_phone(request, site, browser) -> Iterator[Browse]:
    """A phone on the seeded site (embedded mode only), JavaScript on or off."""
    if site.mode == "split":
        pytest.skip("the markup is the same in split mode")
    yield from _phone(site, browser, request.param)


def _arrange(site: Site, change: Any) -> Any:
    with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        result = change(session)
        session.flush()
        return result


def test_demo_nurse_sees_no_claim_on_a_cna_shift_and_the_api_refuses_it(demo_site, demo_phone,
                                                                        artifacts):
    phone = demo_phone
    phone.sign_in("provider@example.com", start="/shifts/open")
    main = phone.page.get_by_role("main")
    claimable = main.get_by_role("list", name="You can claim")
    unavailable = main.get_by_role("list", name="Not available to you")
    cna = unavailable.get_by_role("listitem").filter(has_text=CNA).filter(
        has_text="you don't hold that role")
    expect(cna.first).to_be_visible()
    expect(cna.get_by_role("button", name="Claim")).to_have_count(0)
    expect(claimable.get_by_role("listitem").filter(has_text=CNA)).to_have_count(0)
    expect(claimable.get_by_role("button", name="Claim").first).to_be_visible()
    mode = "js" if phone.javascript else "no-js"
    phone.page.screenshot(path=str(artifacts / f"open-shifts-demo-phone-{mode}.png"),
                          full_page=True)
    # The API says the same: the nurse's claim of that shift is refused.
    shift_id = cna.first.get_attribute("id").removeprefix("open-shift-")
    settings = demo_site.api.config["SHIFTDESK"]
    token = mint_access_token(
        demo_site.api.extensions["shiftdesk"].signing_key,
        subject=str(demo_id("user:provider@example.com")),
        issuer=settings.issuer, audience=settings.audience, ttl=600)
    with build_http(wsgi_app=demo_site.api) as http, pytest.raises(Conflict) as refused:
        ApiClient(http, token).claim_shift(uuid.UUID(shift_id))
    assert refused.value.code == "shift-role-not-held"
    assert [r["name"] for r in refused.value.extensions["roles"]] == [CNA]


def _night_of_pat(session: Any, start: datetime, end: datetime) -> list[uuid.UUID]:
    """Pat's night shift from `start` to `end`, clocked in, on a break after midnight and
    clocked out on time, on a timecard of its own."""
    card = m.Timecard(provider_id=uid("user:provider@example.com"),
                      period_start=start - timedelta(days=2), period_end=end + timedelta(days=2))
    session.add(card)
    shift = session.get(m.Shift, add_shift(session, start=start, break_at=None))
    shift.end_date = shift.segments[0].end_date = end
    session.flush()
    ids = []
    for action, at in [("clock_in", start), ("break_start", start + timedelta(hours=6)),
                       ("break_end", start + timedelta(hours=6, minutes=30)),
                       ("clock_out", end)]:
        punch = m.TimecardPunch(timecard_id=card.id, provider_id=card.provider_id,
                                action=action, state="pending", time=at)
        session.add(punch)
        session.flush()
        ids.append(punch.id)
    return ids


# (with JavaScript, without): each its own night, since they share the site's database.
NIGHTS = {
    # Mon 7 PM EDT to Tue 7 AM.
    "weeknight": [((datetime(2027, 5, 3, 23, tzinfo=UTC), datetime(2027, 5, 4, 11, tzinfo=UTC)),
                   "Mon 3 May", "Tue 4 May"),
                  ((datetime(2027, 5, 10, 23, tzinfo=UTC), datetime(2027, 5, 11, 11, tzinfo=UTC)),
                   "Mon 10 May", "Tue 11 May")],
    # Sat 7 PM EDT to Sun 7 AM EST: the clocks fall back in the night (13 hours).
    "dst-end": [((datetime(2027, 11, 6, 23, tzinfo=UTC), datetime(2027, 11, 7, 12, tzinfo=UTC)),
                 "Sat 6 Nov", "Sun 7 Nov"),
                ((datetime(2028, 11, 4, 23, tzinfo=UTC), datetime(2028, 11, 5, 12, tzinfo=UTC)),
                 "Sat 4 Nov", "Sun 5 Nov")],
}


@pytest.mark.parametrize("which", list(NIGHTS))
def test_night_shift_punches_show_under_the_day_it_started(site, site_phone, which):
    night, started, ended = NIGHTS[which][0 if site_phone.javascript else 1]
    punches = _arrange(site, lambda s: _night_of_pat(s, *night))
    phone = site_phone
    day = night[0].astimezone(site.ui.config["SHIFTDESK"].zone).date()
    phone.sign_in("manager@example.com", start="/manage/timesheets")
    phone.goto(f"/manage/timesheets?period={day.isoformat()}"
               f"&provider={uid('user:provider@example.com')}")
    section = phone.page.get_by_role("article", name=started)  # the night's row (issue 25)
    expect(section).to_be_visible()
    for punch in punches:
        expect(section.locator(f"#punch-{punch}")).to_be_visible()
    expect(section).to_contain_text("7:00 PM")
    expect(section).not_to_contain_text("no shift")
    expect(phone.page.get_by_role("article", name=ended)).to_have_count(0)
    expect(phone.page.get_by_role("main")).not_to_contain_text("No scheduled shift")


def test_schedule_open_shift_row_holds_one_teams_open_shifts(site, site_phone):
    # Wed 9 (or 16) Jun 2027, 7 AM in New York
    start = datetime(2027, 6, 9 if site_phone.javascript else 16, 11, tzinfo=UTC)
    week = "2027-06-07" if site_phone.javascript else "2027-06-14"
    ed, icu = _arrange(site, lambda s: (add_shift(s, start=start, provider=None),
                                        add_shift(s, start=start, provider=None,
                                                  team="Intensive Care")))
    phone = site_phone
    phone.sign_in("admin@example.com", start="/manage/schedule")
    phone.goto(f"/manage/schedule?team={uid('team:Emergency')}&week={week}&view=week")
    row = phone.page.get_by_role("row", name="Open shifts")
    expect(row.locator(f"#shift-{ed}")).to_have_count(1)
    expect(phone.page.locator(f"#shift-{icu}")).to_have_count(0)
    legend = phone.page.get_by_role("list", name="Role colours")
    expect(legend.get_by_role("listitem").filter(has_text="Registered Nurse")).to_have_count(1)
    phone.goto(f"/manage/schedule?team={uid('team:Intensive Care')}&week={week}&view=week")
    expect(phone.page.get_by_role("row", name="Open shifts").locator(f"#shift-{icu}")) \
        .to_have_count(1)
    expect(phone.page.locator(f"#shift-{ed}")).to_have_count(0)
