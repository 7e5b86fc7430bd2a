"""A manager reviews the team's timesheet shift by shift: the period's dates and its neighbours,
a punch editor that opens on demand, one shift approved, then every clean shift of the team in
one action while the shift with a warning stays pending — at 1280 and 390 px, with and without
JavaScript."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

import pytest

from tests.browser.lists import too_small
from tests.browser.manager.conftest import add_punches, add_shift, provider_punches
from tests.factories import uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

PAT = uid("user:provider@example.com")
TEMPLATE_START = date(2026, 2, 23)  # the seeded providers' biweekly pay periods begin here
# Each way of browsing reviews its own pay period in 2028, where no other journey punches.
PERIOD = re.compile(r"^Pay period \w.* \u2013 \w")
WAYS = {"desktop-js": 0, "desktop-no-js": 1, "phone-js": 2, "phone-no-js": 3}


def _period(index: int) -> date:
    first = date(2027, 12, 27)
    assert (first - TEMPLATE_START).days % 14 == 0
    return first + timedelta(days=28 * index)


def _at_seven(day: date) -> datetime:
    return datetime.combine(day, time(12), tzinfo=UTC)  # 7:00 AM in New York in winter


@pytest.mark.parametrize("way", list(WAYS))
def test_review_the_team_by_shift(site, tab, no_js_tab, phones, arrange, way):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the other journeys")
    browse = {"desktop-js": tab, "desktop-no-js": no_js_tab}.get(way) or phones(
        javascript=way == "phone-js")
    first = _period(WAYS[way])
    late_day, approve_day, clean_day = (first + timedelta(days=n) for n in (1, 4, 7))
    shifts = [arrange(lambda s, d=d: add_shift(s, start=_at_seven(d)))
              for d in (late_day, approve_day, clean_day)]
    late, _ = arrange(lambda s: add_punches(s, start=_at_seven(late_day)))
    one = arrange(lambda s: add_punches(s, start=_at_seven(approve_day), late_minutes=0))
    clean = arrange(lambda s: add_punches(s, start=_at_seven(clean_day), late_minutes=0))
    page = browse.page
    browse.sign_in("manager@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?period={late_day.isoformat()}&provider={PAT}")

    # The period: its dates, and the next and previous periods keep team and provider.
    period = page.get_by_text(PERIOD)
    expect(period).to_contain_text(f"Mon {first.day} {first:%b}")
    end = first + timedelta(days=13)
    expect(period).to_contain_text(f"Sun {end.day} {end:%b}")
    nav = page.get_by_role("navigation", name="Pay periods")
    browse.click(nav.get_by_role("link", name="Next period"))
    later = first + timedelta(days=14)
    expect(page.get_by_text(PERIOD)).to_contain_text(
        f"Mon {later.day} {later:%b}")
    assert f"provider={PAT}" in browse.url
    browse.click(page.get_by_role("navigation", name="Pay periods")
                 .get_by_role("link", name="Previous period"))
    expect(page.get_by_text(PERIOD)).to_contain_text(
        f"Mon {first.day} {first:%b}")

    # One row per shift; the late one says why, in words. On a phone the pay-period panel,
    # which counts what waits with links to those rows, fits the first screen, and the rows
    # start on it too.
    rows = [page.locator(f"#row-{s}") for s in shifts]
    expect(rows[0]).to_contain_text("Clocked in late")
    for row in rows:
        expect(row).to_contain_text("Pending review")
    if way.startswith("phone"):
        panel = page.get_by_role("region", name="Sign-off and payroll").bounding_box()
        assert panel is not None
        assert panel["y"] + panel["height"] < 844
        top = page.locator("[data-record]").first.bounding_box()
        assert top is not None
        assert top["y"] < 844

    # The punch editor opens on demand, and closes.
    expect(rows[0].get_by_role("button", name=re.compile("^Save time"))).to_have_count(0)
    browse.click(rows[0].get_by_role("link", name=re.compile("^Edit punches")))
    rows[0] = page.locator(f"#row-{shifts[0]}")
    expect(rows[0].get_by_role("button", name=re.compile("^Save time")).first).to_be_visible()
    expect(rows[0].get_by_label(re.compile("^Note")).first).to_be_visible()
    if way.startswith("phone"):
        assert too_small(page) == []
    browse.click(rows[0].get_by_role("link", name=re.compile("^Close editor")))
    expect(page.locator(f"#row-{shifts[0]}").get_by_role(
        "button", name=re.compile("^Save time"))).to_have_count(0)

    # One shift approved on its own.
    browse.click(page.locator(f"#row-{shifts[1]}").get_by_role(
        "button", name=re.compile("^Approve")))
    expect(page.get_by_role("status")).to_contain_text(
        "Approved 2 punches of Pat Provider's shift.")
    expect(page.locator(f"#row-{shifts[1]}")).to_contain_text("Approved")

    # Every clean shift of the team in one action; the late one stays pending and in view.
    browse.click(page.get_by_role("button", name=re.compile("^Approve all clean shifts")))
    expect(page.get_by_role("status")).to_contain_text(
        "Approved 2 punches in 1 shift; 1 shift with warnings left for you.")
    expect(page.locator(f"#row-{shifts[2]}")).to_contain_text("Approved")
    expect(page.locator(f"#row-{shifts[0]}")).to_contain_text("Pending review")
    expect(page.locator(f"#row-{shifts[0]}")).to_be_visible()
    seen = provider_punches(site, _at_seven(first), _at_seven(first + timedelta(days=14)))
    assert seen[late].state == "pending"
    assert {seen[p].state for p in [*one, *clean]} == {"approved"}


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_fix_a_punch_time_and_reject_one_with_a_note(site, tab, no_js_tab, arrange, javascript):
    if site.mode == "split":
        pytest.skip("covered in embedded mode; the split mode is proven by the other journeys")
    browse = tab if javascript else no_js_tab
    day = date(2026, 9, 9) if javascript else date(2026, 9, 23)  # Wednesdays, 7 AM EDT at 11:00
    start = datetime.combine(day, time(11), tzinfo=UTC)
    shift = arrange(lambda s: add_shift(s, start=start))
    late, clean = arrange(lambda s: add_punches(s, start=start))
    page = browse.page
    browse.sign_in("manager@example.com", start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?period={day.isoformat()}")
    # Every section starts folded; opening Pat's shows Pat's rows (loaded as it opens with
    # JavaScript, through its link without).
    page.get_by_text("Pat Provider", exact=True).click()  # the summary of Pat's section
    if not javascript:
        browse.click(page.get_by_role("link", name=re.compile("^Show Pat Provider's")))
    row = page.locator(f"#row-{shift}")
    expect(row).to_contain_text("Clocked in late")
    browse.click(row.get_by_role("link", name=re.compile("^Edit punches")))
    row = page.locator(f"#row-{shift}")
    row.get_by_label(re.compile("^Time of the clock in")).fill(f"{day.isoformat()}T07:03")
    row.get_by_label(re.compile("^Note on the clock in")).fill("Badge reader was down")
    browse.click(row.get_by_role("button", name=re.compile("^Save time of clock in")))
    expect(page.get_by_role("status")).to_contain_text("Punch time corrected.")
    expect(page.locator(f"#row-{shift}")).not_to_contain_text("Clocked in late")
    row = page.locator(f"#row-{shift}")
    browse.click(row.get_by_role("link", name=re.compile("^Edit punches")))
    row = page.locator(f"#row-{shift}")
    browse.click(row.get_by_role("button", name=re.compile("^Reject clock out")))
    row = page.locator(f"#row-{shift}")
    expect(row.get_by_role("alert")).to_contain_text("Tell the provider why")
    row.get_by_label(re.compile("^Note on the clock out")).fill("Left before handover")
    browse.click(row.get_by_role("button", name=re.compile("^Reject clock out")))
    expect(page.get_by_role("status")).to_contain_text("Punch rejected")
    seen = provider_punches(site, start - timedelta(hours=6), start + timedelta(days=1))
    assert seen[clean].state == "rejected"
    assert seen[clean].admin_note == "Left before handover"
    assert seen[late].admin_note == "Badge reader was down"
    assert seen[late].time == start + timedelta(minutes=3)
