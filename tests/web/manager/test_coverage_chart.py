"""The coverage chart page (`/manage/schedule/coverage`): per role with a forecast an SVG and a
table of the same numbers as `GET /v1/forecasting/coverage` for the same query. The seeded
forecast asks for 4 Emergency nurses from 7:00 AM to 7:00 PM on Monday 2 March 2026; the week
of 2 March holds Sunday 8 March, when the clocks go forward (23 hours). The physician's role has
no forecast."""

from __future__ import annotations

import html as markup
import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.api import models as m
from app.web.filters import format_headcount
from tests.factories import uid
from tests.web.conftest import Web

MANAGER = "manager@example.com"
ZONE = ZoneInfo("America/New_York")
HX = {"HX-Request": "true"}


def _text(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _chart(web: Web, query: str, user: str = MANAGER, **kw: Any) -> Any:
    web.sign_in(user)
    return web.client.get(f"/manage/schedule/coverage?{query}", **kw)


def _api_coverage(web: Web, team: Any, monday: date, interval: int = 60,
                  user: str = MANAGER) -> dict[str, Any]:
    start = datetime.combine(monday, time(0), ZONE).astimezone(UTC)
    end = datetime.combine(monday + timedelta(days=7), time(0), ZONE).astimezone(UTC)
    response = web.client.get("/v1/forecasting/coverage", query_string={
        "teamId": str(team), "startDate": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "endDate": end.strftime("%Y-%m-%dT%H:%M:%SZ"), "interval": interval},
        headers={"Authorization": f"Bearer {web.token(user)}"})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _table_rows(html: str, role_id: Any) -> list[list[str]]:
    """The rows of a role's table as the cells' text: start, demand, scheduled, open, gap."""
    table = html.split(f'<caption id="covc-cap-{role_id}">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr class="covc-row[^"]*">(.*?)</tr>', table, re.S)
    return [[_text(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in rows]


def _gap(value: float) -> str:
    if value > 0:
        return f"{format_headcount(value)} short"
    if value < 0:
        return f"{format_headcount(-value)} over"
    return "0"


def _expected(role: dict[str, Any]) -> list[list[str]]:
    return [[format_headcount(c["demand"]), format_headcount(c["scheduled"]),
             format_headcount(c["open"]), _gap(c["gap"])] for c in role["intervals"]]


def test_the_tables_numbers_are_the_apis_for_the_same_week(web: Web) -> None:
    response = _chart(web, f"team={web.world.ed}&week=2026-03-04")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    body = _api_coverage(web, web.world.ed, date(2026, 3, 2))
    nurse = next(r for r in body["roles"] if r["roleId"] == str(web.world.ed_nurse_role))
    rows = _table_rows(html, web.world.ed_nurse_role)
    assert [row[1:] for row in rows] == _expected(nurse)
    # The day the clocks go forward has 23 hourly rows: 7 x 24 - 1 in the week.
    assert len(rows) == 167
    sunday = html.split('<time datetime="2026-03-08">', 1)[1].split("</tbody>", 1)[0]
    assert sunday.count('<tr class="covc-row') == 23
    assert " 2:00 AM " not in f" {_text(sunday)} "  # no 2 AM that night (12:00 AM is there)
    assert " 3:00 AM " in f" {_text(sunday)} "
    assert [r[0] for r in rows[:2]] == ["12:00 AM", "1:00 AM"]
    text = _text(html)
    assert "Coverage against demand: Emergency" in text
    assert "Registered Nurse: demand up to 4, scheduled up to 4." in text
    assert "2 staff-hours short this week." in text
    assert "No forecast for Physician: nothing to compare their hours with." in text
    # Drawn: one bar for each interval with staff, and the week's 7 days marked.
    svg = html.split('<svg class="covc-svg" role="img"', 1)[1].split("</svg>", 1)[0]
    assert svg.count('class="covc-short"') == 1  # the one short hour, 1:00 PM on Monday
    assert len(re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="middle">', svg)) == 7


def test_another_interval_gives_the_apis_figures_for_it(web: Web) -> None:
    html = _chart(web, f"team={web.world.ed}&week=2026-03-02&interval=240").get_data(
        as_text=True)
    body = _api_coverage(web, web.world.ed, date(2026, 3, 2), interval=240)
    nurse = next(r for r in body["roles"] if r["roleId"] == str(web.world.ed_nurse_role))
    rows = _table_rows(html, web.world.ed_nurse_role)
    assert [row[1:] for row in rows] == _expected(nurse)
    assert len(rows) == len(nurse["intervals"]) == 6 * 7  # 4-hour steps: the 8th has 6 too
    assert '<option value="240" selected>4h</option>' in html


def test_the_fall_back_week_has_25_rows_on_its_sunday(mweb: Web, arrange: Any) -> None:
    def forecast(session: Any, world: Any) -> None:
        start = datetime.combine(date(2026, 10, 27), time(7), ZONE).astimezone(UTC)
        session.add(m.DemandForecastRow(role_id=world.ed_nurse_role, start_date=start,
                                        end_date=start + timedelta(hours=12), demand=2.5))

    arrange(forecast)
    html = _chart(mweb, f"team={mweb.world.ed}&week=2026-10-26").get_data(as_text=True)
    rows = _table_rows(html, mweb.world.ed_nurse_role)
    assert len(rows) == 7 * 24 + 1
    sunday = html.split('<time datetime="2026-11-01">', 1)[1].split("</tbody>", 1)[0]
    assert sunday.count('<tr class="covc-row') == 25
    assert "1:00 AM EDT" in _text(sunday)
    assert "1:00 AM EST" in _text(sunday)
    body = _api_coverage(mweb, mweb.world.ed, date(2026, 10, 26))
    nurse = next(r for r in body["roles"] if r["roleId"] == str(mweb.world.ed_nurse_role))
    assert [row[1:] for row in rows] == _expected(nurse)
    assert ["7:00 AM", "2.5", "0", "0", "2.5 short"] in rows


def test_a_team_without_a_forecast_this_week_says_so(web: Web) -> None:
    response = _chart(web, f"team={web.world.ed}&week=2027-06-07")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert ("No demand forecast for Emergency in this week: nothing to compare the schedule "
            "with.") in _text(html)
    assert "<svg class=\"covc-svg\"" not in html
    assert "<table" not in html


def test_whoever_may_not_read_the_coverage_gets_a_polite_403(web: Web) -> None:
    response = _chart(web, f"team={web.world.ed}&week=2026-03-02",
                      user="provider@example.com")
    assert response.status_code == 403
    text = _text(response.get_data(as_text=True))
    assert "Not allowed You may not view this demand forecast." in text
    assert "Go to the home page" in text
    # Another team's manager: the API refuses the Emergency team.
    other = _chart(web, f"team={web.world.ed}&week=2026-03-02",
                   user="icu.manager@example.com")
    assert other.status_code == 403


def test_week_links_keep_team_and_interval_and_the_fragment_is_the_chart(web: Web) -> None:
    response = _chart(web, f"team={web.world.ed}&week=2026-03-02&interval=30", headers=HX)
    html = response.get_data(as_text=True)
    assert html.strip().startswith('<div id="coverage-chart" class="covc">')
    assert "HX-Request" in response.vary
    links = markup.unescape(html)
    assert (f'href="/manage/schedule/coverage?team={web.world.ed}&week=2026-02-23&interval=30"'
            in links)
    assert (f'href="/manage/schedule/coverage?team={web.world.ed}&week=2026-03-09&interval=30"'
            in links)
    assert (f'href="/manage/schedule?team={web.world.ed}&week=2026-03-02&view=week"' in links)


def test_the_schedules_strip_links_to_the_chart_of_its_week(web: Web) -> None:
    web.sign_in(MANAGER)
    html = markup.unescape(web.client.get(
        f"/manage/schedule?team={web.world.ed}&day=2026-03-04&view=week").get_data(as_text=True))
    link = re.search(r'<a href="([^"]+)">See the chart</a>', html)
    assert link is not None
    assert link.group(1) == f"/manage/schedule/coverage?team={web.world.ed}&week=2026-03-02"
    assert web.client.get(link.group(1)).status_code == 200
    # No forecast that week: no strip, and no link to a chart with nothing to draw.
    quiet = web.client.get(f"/manage/schedule?team={web.world.ed}&week=2027-06-07&view=week")
    assert "See the chart" not in quiet.get_data(as_text=True)


def test_a_team_that_is_not_there_shows_the_managers_own(web: Web) -> None:
    html = _chart(web, f"team={uid('team:Nowhere')}&week=2026-03-02").get_data(as_text=True)
    assert "Coverage against demand: Emergency" in _text(html)
