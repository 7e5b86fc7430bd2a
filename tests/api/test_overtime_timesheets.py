"""Timesheets and the payroll export paid under a team's work rule, end to end through the API.

This module's own copy of the world adds an "Overtime" team in New York whose only provider,
Olive, works the week of Sunday 5 April 2026 (EDT) under the California preset (daily over 8 at
1.5, over 12 at 2, weekly over 40 at 1.5, the seventh consecutive day), created and assigned
through the work rule endpoints:

| day      | worked | regular | overtime (1.5)       | double time |
|----------|--------|---------|----------------------|-------------|
| Mon-Wed  | 10 h   | 8 h     | 2 h each (daily)     |             |
| Thu      | 13 h   | 8 h     | 4 h (daily 8-12)     | 1 h (>12)   |
| Fri      | 10 h   | 8 h     | 2 h (daily)          |             |
| Sat      | 4 h    |         | 4 h (weekly: 40 reg.)|             |

67 hours: 40 regular, 16 overtime, 1 double time; daily overtime does not count toward the 40
(California Labor Code 510; nothing is paid twice). A version of the rule from Sunday 12 April
adds quarter-hour rounding, so the next Monday's 06:53-15:08 is paid 07:00-15:15.
"""

from __future__ import annotations

import csv
import io
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from app import create_app
from app.api import models as m
from app.contract.common import format_timestamp
from tests.conftest import Api, Template, make_settings
from tests.factories import make_provider, make_role, make_team, uid

TIMESHEET = "/v1/timekeeping/timesheet"
RULES = "/v1/settings/work-rules"
RUNS = "/v1/reporting/reports/runs"
ADMIN, MANAGER = "admin@example.com", "manager@example.com"  # the manager is not Overtime's
OLIVE_EMAIL = "olive.overtime@example.com"
TEAM = uid("team:Overtime")
REG, OT, DT = str(uid("pay:REG")), str(uid("pay:OT")), str(uid("pay:DT"))
QUARTER = str(uid("rounding:quarter"))


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


WEEK = (_at("2026-04-05T04:00"), _at("2026-04-12T04:00"))
# (clock-in, clock-out) in UTC; EDT is UTC-4, so 11:00Z is 07:00 local.
WORK = [
    (_at("2026-04-06T11:00"), _at("2026-04-06T21:00")),  # Mon 10 h
    (_at("2026-04-07T11:00"), _at("2026-04-07T21:00")),  # Tue 10 h
    (_at("2026-04-08T11:00"), _at("2026-04-08T21:00")),  # Wed 10 h
    (_at("2026-04-09T11:00"), _at("2026-04-10T00:00")),  # Thu 13 h (07:00-20:00)
    (_at("2026-04-10T11:00"), _at("2026-04-10T21:00")),  # Fri 10 h
    (_at("2026-04-11T11:00"), _at("2026-04-11T15:00")),  # Sat 4 h
    (_at("2026-04-13T10:53:40"), _at("2026-04-13T19:08:10")),  # next Mon 06:53-15:08, rounded
]


def _window(start: datetime, end: datetime) -> dict[str, str]:
    return {"startDate": format_timestamp(start), "endDate": format_timestamp(end)}


@pytest.fixture(scope="module")
def ot_api(template: Template, signing_key_path: Path,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, str]]:
    """This module's copy of the world, the Overtime team and Olive's punches, and the
    California work rule created from its preset and assigned to the team (its id given)."""
    url, drop = template.copy(tmp_path_factory.mktemp("overtime"))
    app = create_app(make_settings(url, signing_key_path))
    api = Api(app, template.world, template.backend)
    with api.db.unit_of_work(write=True) as session:
        session.add_all([
            m.PayCode(id=uid("pay:OT"), name="Overtime", shorthand_name="OT",
                      hex_color="#E45756", type="hours", value=1.5),
            m.PayCode(id=uid("pay:DT"), name="Double time", shorthand_name="DT",
                      hex_color="#B279A2", type="hours", value=2.0)])
        team = make_team(session, "Overtime", shorthand_name="OV")
        role = make_role(session, team, "Registered Nurse")
        olive = make_provider(session, OLIVE_EMAIL, team, "Olive Overtime",
                              default_role_id=role.id)
        olive.user.rbac_roles = [session.scalars(
            select(m.RbacRole).where(m.RbacRole.name == "Provider")).one()]
        session.flush()
        card = m.Timecard(provider_id=olive.id, period_start=_at("2026-03-29T04:00"),
                          period_end=_at("2026-05-03T04:00"))
        session.add(card)
        session.flush()
        for clock_in, clock_out in WORK:
            for action, moment in (("clock_in", clock_in), ("clock_out", clock_out)):
                session.add(m.TimecardPunch(timecard_id=card.id, provider_id=olive.id,
                                            action=action, state="approved", time=moment))
    created = api.post(RULES, user=ADMIN, json={
        "name": "California", "preset": "california", "timeZone": "America/New_York",
        "effectiveFrom": "2026-03-01", "payCodes": {"overtime": OT, "doubleTime": DT}})
    assert created.status_code == 201, created.get_json()
    rule = created.get_json()
    assigned = api.put(f"/v1/teams/{TEAM}/work-rule", user=ADMIN,
                       json={"workRuleId": rule["id"]})
    assert assigned.status_code == 200, assigned.get_json()
    yield api, rule["id"]
    app.extensions["shiftdesk"].db.dispose()
    drop()


OLIVE = str(uid(f"user:{OLIVE_EMAIL}"))


def _sheet(api: Api, start: datetime, end: datetime) -> dict[str, Any]:
    response = api.get(TIMESHEET, user=ADMIN,
                       query_string={"team": str(TEAM), **_window(start, end)})
    assert response.status_code == 200, response.get_json()
    (sheet,) = response.get_json()["items"]
    return sheet


def _totals(sheet: dict[str, Any]) -> dict[str, int]:
    found: dict[str, int] = defaultdict(int)
    for total in sheet["payCodeTotals"]:
        found[total["payCodeId"]] += total["actual"]
    return dict(found)


def test_a_california_week_pays_daily_overtime_double_time_and_weekly_overtime_once(
        ot_api: tuple[Api, str]) -> None:
    api, _rule = ot_api
    sheet = _sheet(api, *WEEK)
    assert _totals(sheet) == {REG: 40 * 60, OT: 16 * 60, DT: 60}
    assert sheet["weeks"] == [{"startDate": format_timestamp(WEEK[0]), "regularMinutes": 2400,
                               "overtimeMinutes": 960, "doubleTimeMinutes": 60}]
    overtime = [s for s in sheet["paySegments"] if s.get("overtime")]
    # Every overtime segment names its rule and why: Thursday's 13th hour is double time (the
    # day's hours 12-13); Saturday's four hours are the week's hours 53-57, paid as weekly
    # overtime because its regular hours had reached 40 (the basis counts all the week's time).
    thursday_dt = [s for s in overtime if s["payCodes"] == [DT]]
    assert [(s["startDate"], s["endDate"], s["overtimeBasis"]) for s in thursday_dt] == [
        ("2026-04-09T23:00:00+0000", "2026-04-10T00:00:00+0000",
         {"kind": "daily", "fromMinutes": 720, "toMinutes": 780})]
    saturday = [s for s in overtime if s["startDate"].startswith("2026-04-11")]
    assert [(s["payCodes"], s["overtimeBasis"]) for s in saturday] == [
        ([OT], {"kind": "weekly", "fromMinutes": 3180, "toMinutes": 3420})]
    assert all(s["overtimeBasis"]["kind"] == "daily" for s in overtime
               if s not in saturday)
    regular = [s for s in sheet["paySegments"] if not s.get("overtime")]
    assert all("overtimeBasis" not in s for s in regular)


def test_a_window_inside_the_week_still_counts_the_weeks_earlier_hours(
        ot_api: tuple[Api, str]) -> None:
    """Friday and Saturday alone: Friday's hours 9-10 are daily overtime and Saturday is weekly
    overtime, because Monday to Thursday already hold 32 regular hours."""
    api, _rule = ot_api
    sheet = _sheet(api, _at("2026-04-10T04:00"), WEEK[1])
    assert _totals(sheet) == {REG: 8 * 60, OT: 6 * 60}
    assert sheet["weeks"][0]["startDate"] == format_timestamp(WEEK[0])
    assert sheet["weeks"][0]["overtimeMinutes"] == 360


def test_the_payroll_export_pays_the_same_overtime_as_the_timesheet(
        ot_api: tuple[Api, str]) -> None:
    api, _rule = ot_api
    expected = _totals(_sheet(api, *WEEK))
    response = api.post(RUNS, user=ADMIN, json={"reportId": "payroll", "parameters": {
        **_window(*WEEK), "teamId": str(TEAM)}})
    assert response.status_code == 201, response.get_json()
    run_id = response.get_json()["id"]
    deadline = time.monotonic() + 30
    body = api.get(f"{RUNS}/{run_id}").get_json()
    while body["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.02)
        body = api.get(f"{RUNS}/{run_id}").get_json()
    assert body["status"] == "completed", body
    link = api.get(f"{RUNS}/{run_id}/download").get_json()
    download = api.get(urlsplit(link["url"]).path, user=None)
    assert download.status_code == 200
    rows = list(csv.DictReader(io.StringIO(download.get_data(as_text=True))))
    paid: dict[str, int] = defaultdict(int)
    for row in rows:
        paid[row["payCodeId"]] += int(row["actualMinutes"])
    assert dict(paid) == expected
    assert {row["payCode"] for row in rows if row["payCodeId"] == OT} == {"OT"}


def test_a_new_version_rounds_punches_from_its_first_day_and_shows_the_raw_time(
        ot_api: tuple[Api, str]) -> None:
    api, rule = ot_api
    current = api.get(f"{RULES}/{rule}").get_json()
    response = api.patch(f"{RULES}/{rule}", user=ADMIN, json={
        "effectiveFrom": "2026-04-12", "version": current["version"],
        "overtimeRuleIds": [o["id"] for o in current["current"]["overtime"]],
        "roundingRuleId": QUARTER})
    assert response.status_code == 200, response.get_json()
    week = _sheet(api, *WEEK)
    assert _totals(week) == {REG: 40 * 60, OT: 16 * 60, DT: 60}  # the earlier week unchanged
    assert all(p["roundedTime"] is None for p in week["punches"])
    monday = _sheet(api, _at("2026-04-13T04:00"), _at("2026-04-14T04:00"))
    rounded = {p["time"]: p["roundedTime"] for p in monday["punches"]}
    assert rounded == {"2026-04-13T10:53:40+0000": "2026-04-13T11:00:00+0000",
                       "2026-04-13T19:08:10+0000": "2026-04-13T19:15:00+0000"}
    # 07:00-15:15 is 8 h 15: the quarter hour past 8 is daily overtime.
    assert _totals(monday) == {REG: 480, OT: 15}


def test_overtime_starts_at_is_absent_for_a_window_that_does_not_hold_now(
        ot_api: tuple[Api, str]) -> None:
    api, _rule = ot_api
    assert _sheet(api, *WEEK)["overtimeStartsAt"] is None


def test_a_team_without_a_work_rule_pays_every_minute_as_before(ot_api: tuple[Api, str]) -> None:
    api, _rule = ot_api
    response = api.get(TIMESHEET, user=MANAGER, query_string={
        "team": str(uid("team:Emergency")), **_window(*WEEK)})
    assert response.status_code == 200
    for sheet in response.get_json()["items"]:
        assert sheet["weeks"] == []
        assert not any(s.get("overtime") for s in sheet["paySegments"])


def test_olive_reads_her_own_overtime_and_why(ot_api: tuple[Api, str]) -> None:
    api, _rule = ot_api
    response = api.get(TIMESHEET, user=OLIVE_EMAIL, query_string={
        "provider": OLIVE, **_window(*WEEK)})
    assert response.status_code == 200, response.get_json()
    sheet = response.get_json()
    assert _totals(sheet)[OT] == 960
    assert sheet["weeks"][0]["overtimeMinutes"] == 960


PREVIEW = "/v1/settings/work-rules/preview"


def _preview_body(**changes: Any) -> dict[str, Any]:
    return {"teamId": str(TEAM), **_window(*WEEK), "workRule": {
        "name": "Hospital", "preset": "us-hospital-8-80", "timeZone": "America/New_York",
        "periodAnchor": "2026-03-29", "payCodes": {"overtime": OT, "doubleTime": DT}},
        **changes}


def test_a_preview_shows_each_persons_hours_under_both_rules_and_saves_nothing(
        ot_api: tuple[Api, str]) -> None:
    """8 and 80 (29 CFR 778.601): the days over 8 hours are overtime (13 h), and 44 regular
    hours in the 14-day period stay under 80, so Saturday is regular; no double time."""
    api, rule = ot_api
    rules_before = api.get(RULES).get_json()["items"]
    overtime_before = api.get("/v1/settings/overtime-rules").get_json()["items"]
    response = api.post(PREVIEW, user=ADMIN, json=_preview_body())
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["currentWorkRuleId"] == rule
    (olive,) = body["items"]
    assert (olive["providerId"], olive["name"]) == (OLIVE, "Olive Overtime")
    assert olive["current"] == {"regularMinutes": 2400, "overtimeMinutes": 960,
                                "doubleTimeMinutes": 60}
    assert olive["proposed"] == {"regularMinutes": 2640, "overtimeMinutes": 780,
                                 "doubleTimeMinutes": 0}
    assert olive["difference"] == {"regularMinutes": 240, "overtimeMinutes": -180,
                                   "doubleTimeMinutes": -60}
    assert body["totals"]["proposed"] == olive["proposed"]
    assert api.get(RULES).get_json()["items"] == rules_before
    assert api.get("/v1/settings/overtime-rules").get_json()["items"] == overtime_before


@pytest.mark.parametrize(("user", "changes", "status", "code"), [
    (OLIVE_EMAIL, {}, 403, "unauthorized"),
    (ADMIN, {"teamId": str(uid("team:nowhere"))}, 404, "team-not-found"),
    (ADMIN, {"endDate": "2026-07-05T04:00:00+0000"}, 400, "validation"),
    (ADMIN, {"endDate": "2026-04-01T04:00:00+0000"}, 400, "negative-range"),
    (ADMIN, {"workRule": {"name": "x", "preset": "us-hospital-8-80",
                          "timeZone": "America/New_York"}}, 400, "validation"),
])
def test_a_preview_refuses_what_saving_would_refuse(
        ot_api: tuple[Api, str], user: str, changes: dict[str, Any], status: int,
        code: str) -> None:
    api, _rule = ot_api
    response = api.post(PREVIEW, user=user, json=_preview_body(**changes))
    assert response.status_code == status, response.get_json()
    assert response.get_json()["type"].endswith(code)


def test_a_preview_with_rounding_by_interval_makes_no_rounding_rule(
        ot_api: tuple[Api, str]) -> None:
    """`rounding: {intervalMinutes, mode}` names the rounding by what it does; previewing with
    one nobody has yet makes nothing (the preview is rolled back)."""
    api, _rule = ot_api
    before = api.get("/v1/settings/rounding-rules").get_json()["items"]
    body = _preview_body()
    body["workRule"]["rounding"] = {"intervalMinutes": 6, "mode": "up"}
    response = api.post(PREVIEW, user=ADMIN, json=body)
    assert response.status_code == 200, response.get_json()
    assert api.get("/v1/settings/rounding-rules").get_json()["items"] == before
    body["workRule"]["roundingRuleId"] = QUARTER
    both = api.post(PREVIEW, user=ADMIN, json=body)
    assert both.status_code == 400
    assert both.get_json()["type"].endswith("#validation")
