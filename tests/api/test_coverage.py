"""Staffing coverage (`GET /v1/forecasting/coverage`, extension) against hand-counted figures.

This module's copy of the world adds a "Coverage" team in New York (its own manager) with two
roles: Nurse, which has a forecast, and Tech, which has none. On Wednesday 10 June 2026 (EDT,
UTC-4), hour by hour in local time:

| local hour  | forecast  | Ada         | Bo         | Cy            | open |
|-------------|-----------|-------------|------------|---------------|------|
| 07-08       | 2         | 1           |            |               |      |
| 09-10       | 2         | 1           |            |               | 1    |
| 12-13       | 2 + 1 = 3 | 0.5 (break) |            |               | 1    |
| 13-14       | 2         | 1           |            | 1             | 1    |
| 15-16       | 2         | 1           |            | 0 (time off)  | 1    |
| 19-20       | 0         | 0.5         | 1          |               |      |
| 00-01 (Thu) | 0         |             | 1          |               |      |

Ada works 07:00-19:30 with a break 12:00-12:30, Bo 19:00-07:00 (across midnight), Cy
13:00-17:00 with approved time off 15:00-17:00; Dee's 07:00-19:00 is a callout (not counted);
an open shift runs 09:00-17:00. Ada also has a second shift overlapping her first from 18:00
to 19:30: she still counts once. The two nights of the clock change carry a twelve-hour night
shift each.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from app import create_app
from app.api import models as m
from app.contract.common import format_timestamp
from tests.conftest import Api, Template, make_settings
from tests.factories import make_provider, make_role, make_shift, make_team, make_user, uid

COVERAGE = "/v1/forecasting/coverage"
NEW_YORK = ZoneInfo("America/New_York")
TEAM = uid("team:Coverage")
NURSE, TECH = uid("role:Coverage:Nurse"), uid("role:Coverage:Tech")
MANAGER = "cover.manager@example.com"


def _local(day: str, clock: str) -> datetime:
    return datetime.fromisoformat(f"{day}T{clock}").replace(tzinfo=NEW_YORK).astimezone(UTC)


@pytest.fixture(scope="module")
def cov_api(template: Template, signing_key_path: Path,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    url, drop = template.copy(tmp_path_factory.mktemp("coverage"))
    app = create_app(make_settings(url, signing_key_path))
    api = Api(app, template.world, template.backend)
    with api.db.unit_of_work(write=True) as session:
        rbac = {r.name: r for r in session.scalars(select(m.RbacRole))}
        team = make_team(session, "Coverage")
        nurse, tech = make_role(session, team, "Nurse"), make_role(session, team, "Tech")
        manager = make_user(session, MANAGER, "Cora Manager")
        session.flush()
        manager.managed_teams = [team]
        manager.rbac_roles = [rbac["Manager"]]
        people = {}
        for name in ("Ada", "Bo", "Cy", "Dee", "Eve", "Fay"):
            person = make_provider(session, f"{name.lower()}.cover@example.com", team, name,
                                   default_role_id=nurse.id)
            people[name] = person
        session.flush()
        for person in people.values():
            person.user.rbac_roles = [rbac["Provider"]]

        def shift(who: str | None, start: datetime, end: datetime, **kw: Any) -> m.Shift:
            made = make_shift(session, provider=people[who] if who else None, team=team,
                              role=nurse, start=start, hours=0, break_at=None, **kw)
            made.end_date = end
            made.segments[0].end_date = end
            return made

        day = "2026-06-10"
        ada = make_shift(session, provider=people["Ada"], team=team, role=nurse,
                         start=_local(day, "07:00"), hours=12, break_at=5)  # break 12:00-12:30
        ada.end_date = ada.segments[-1].end_date = _local(day, "19:30")
        shift("Ada", _local(day, "18:00"), _local(day, "19:30"))  # overlaps her first
        shift("Bo", _local(day, "19:00"), _local("2026-06-11", "07:00"))
        shift("Cy", _local(day, "13:00"), _local(day, "17:00"))
        shift("Dee", _local(day, "07:00"), _local(day, "19:00"), is_callout=True)
        shift(None, _local(day, "09:00"), _local(day, "17:00"))
        # Cy's approved afternoon off; a pending request of Ada's changes nothing.
        for who, status in (("Cy", "approved"), ("Ada", "pending")):
            session.add(m.TimeOffRequest(
                id=uid(f"tor:cover:{who}"), status=status, start_date=_local(day, "15:00"),
                end_date=_local(day, "17:00"),
                policy_id=uid("policy:pto"), provider_id=people[who].id, paid_hours=2.0,
                is_full_day=False))
        for start, end, demand in (("07:00", "19:00", 2.0), ("12:00", "13:00", 1.0)):
            session.add(m.DemandForecastRow(role_id=nurse.id, start_date=_local(day, start),
                                            end_date=_local(day, end), demand=demand))
        # The clock changes: twelve-hour nights by the wall clock (11 and 13 hours elapsed).
        shift("Eve", _local("2026-03-07", "22:00"), _local("2026-03-08", "10:00"))
        session.add(m.DemandForecastRow(role_id=nurse.id, start_date=_local("2026-03-08", "00:00"),
                                        end_date=_local("2026-03-08", "06:00"), demand=1.5))
        shift("Fay", _local("2026-10-31", "19:00"), _local("2026-11-01", "07:00"))
        assert (nurse.id, tech.id) == (NURSE, TECH)
    yield api
    app.extensions["shiftdesk"].db.dispose()
    drop()


def _coverage(api: Api, start: datetime, end: datetime, user: str = MANAGER,
              **extra: Any) -> Any:
    return api.get(COVERAGE, user=user, query_string={
        "teamId": str(TEAM), "startDate": format_timestamp(start),
        "endDate": format_timestamp(end), **extra})


def _role(body: dict[str, Any], role: Any) -> dict[str, Any]:
    return next(r for r in body["roles"] if r["roleId"] == str(role))


def _by_local_hour(role: dict[str, Any]) -> dict[str, dict[str, float]]:
    found = {}
    for cell in role["intervals"]:
        start = datetime.strptime(cell["startDate"], "%Y-%m-%dT%H:%M:%S%z").astimezone(NEW_YORK)
        found[start.strftime("%d %H:%M %Z")] = {k: cell[k] for k in
                                                ("demand", "scheduled", "open", "gap")}
    return found


def test_a_day_hour_by_hour_matches_the_hand_count(cov_api: Api) -> None:
    response = _coverage(cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "06:00"))
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["interval"], body["timeZone"]) == (60, "America/New_York")
    assert [r["roleName"] for r in body["roles"]] == ["Nurse", "Tech"]
    nurse = _role(body, NURSE)
    assert nurse["hasForecast"] is True
    hours = _by_local_hour(nurse)
    assert len(hours) == 30
    assert hours["10 06:00 EDT"] == {"demand": 0, "scheduled": 0, "open": 0, "gap": 0}
    assert hours["10 07:00 EDT"] == {"demand": 2, "scheduled": 1, "open": 0, "gap": 1}
    assert hours["10 09:00 EDT"] == {"demand": 2, "scheduled": 1, "open": 1, "gap": 1}
    assert hours["10 12:00 EDT"] == {"demand": 3, "scheduled": 0.5, "open": 1, "gap": 2.5}
    assert hours["10 13:00 EDT"] == {"demand": 2, "scheduled": 2, "open": 1, "gap": 0}
    assert hours["10 15:00 EDT"] == {"demand": 2, "scheduled": 1, "open": 1, "gap": 1}
    assert hours["10 18:00 EDT"] == {"demand": 2, "scheduled": 1, "open": 0, "gap": 1}
    assert hours["10 19:00 EDT"] == {"demand": 0, "scheduled": 1.5, "open": 0, "gap": -1.5}
    assert hours["11 00:00 EDT"] == {"demand": 0, "scheduled": 1, "open": 0, "gap": -1}
    assert hours["11 05:00 EDT"]["scheduled"] == 1
    # Short: 1 (07-09, 2 h) + 1 (09-12, 3 h) + 2.5 + 0 + 1 + 1 (14-16) ... hand-summed:
    # 07-12: 5 h x 1; 12-13: 2.5; 13-15: 0; 15-17: 2 h x 1; 17-19: 2 h x 1 => 11.5
    assert nurse["shortHours"] == 11.5


def test_a_role_without_a_forecast_has_no_demand_and_says_so(cov_api: Api) -> None:
    body = _coverage(cov_api, _local("2026-06-10", "00:00"),
                     _local("2026-06-11", "00:00")).get_json()
    tech = _role(body, TECH)
    assert tech["hasForecast"] is False
    assert {c["demand"] for c in tech["intervals"]} == {0}
    assert tech["shortHours"] == 0


def test_spring_forward_day_has_23_hourly_intervals_and_counts_the_night_exactly(
        cov_api: Api) -> None:
    body = _coverage(cov_api, _local("2026-03-08", "00:00"),
                     _local("2026-03-09", "00:00")).get_json()
    nurse = _role(body, NURSE)
    cells = nurse["intervals"]
    assert len(cells) == 23
    # Eve's night: 22:00 EST to 10:00 EDT is 11 hours, 9 of them on the 8th.
    assert sum(c["scheduled"] for c in cells) == 9
    hours = _by_local_hour(nurse)
    assert hours["08 01:00 EST"] == {"demand": 1.5, "scheduled": 1, "open": 0, "gap": 0.5}
    assert "08 02:00 EST" not in hours
    assert "08 02:00 EDT" not in hours
    assert hours["08 03:00 EDT"]["scheduled"] == 1
    assert hours["08 10:00 EDT"]["scheduled"] == 0
    # Demand 00:00-06:00 local is 5 elapsed hours at 1.5.
    assert sum(c["demand"] for c in cells) == 7.5


def test_fall_back_day_has_25_hourly_intervals_and_counts_the_night_exactly(
        cov_api: Api) -> None:
    body = _coverage(cov_api, _local("2026-11-01", "00:00"),
                     _local("2026-11-02", "00:00")).get_json()
    cells = _role(body, NURSE)["intervals"]
    assert len(cells) == 25
    # Fay's night: 19:00 EDT to 07:00 EST is 13 hours, 8 of them on the 1st (1 AM twice).
    assert sum(c["scheduled"] for c in cells) == 8
    ones = [c for c in cells if c["startDate"] in ("2026-11-01T05:00:00+0000",
                                                   "2026-11-01T06:00:00+0000")]
    assert [c["scheduled"] for c in ones] == [1, 1]


def test_intervals_of_another_length_and_a_window_off_the_grid(cov_api: Api) -> None:
    body = _coverage(cov_api, _local("2026-06-10", "11:45"), _local("2026-06-10", "13:15"),
                     interval=30, roleId=str(NURSE)).get_json()
    (nurse,) = body["roles"]
    spans = [(c["startDate"][11:16], c["endDate"][11:16]) for c in nurse["intervals"]]
    # 11:45 EDT is 15:45Z: the first and last intervals are cut by the window.
    assert spans == [("15:45", "16:00"), ("16:00", "16:30"), ("16:30", "17:00"),
                     ("17:00", "17:15")]
    assert [c["scheduled"] for c in nurse["intervals"]] == [1, 0, 1, 2]
    assert [c["demand"] for c in nurse["intervals"]] == [2, 3, 3, 2]


def test_a_pending_request_assumed_approved_shows_what_approving_it_would_leave(
        cov_api: Api) -> None:
    ada = str(uid("tor:cover:Ada"))
    before = _by_local_hour(_role(_coverage(
        cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00")).get_json(), NURSE))
    response = _coverage(cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00"),
                         assumeApproved=ada)
    assert response.status_code == 200, response.get_json()
    after = _by_local_hour(_role(response.get_json(), NURSE))
    # Ada's 15:00-17:00 off: she leaves the floor, nobody else changes.
    assert before["10 15:00 EDT"] == {"demand": 2, "scheduled": 1, "open": 1, "gap": 1}
    assert after["10 15:00 EDT"] == {"demand": 2, "scheduled": 0, "open": 1, "gap": 2}
    assert after["10 16:00 EDT"]["gap"] == 2
    changed = {hour for hour in before if before[hour] != after[hour]}
    assert changed == {"10 15:00 EDT", "10 16:00 EDT"}
    # Without the request the figures are as stored: nothing was approved.
    again = _by_local_hour(_role(_coverage(
        cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00")).get_json(), NURSE))
    assert again == before


def test_an_unknown_request_to_assume_is_not_found(cov_api: Api) -> None:
    response = _coverage(cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00"),
                         assumeApproved=str(uid("tor:nobody")))
    assert response.status_code == 404
    assert response.get_json()["type"].endswith("#time-off-request-not-found")


@pytest.mark.parametrize(("extra", "status", "code"), [
    ({"interval": "7"}, 400, "validation"),
    ({"interval": "0"}, 400, "validation"),
    ({"roleId": str(uid("role:Emergency:Registered Nurse"))}, 404, "role-not-found"),
    ({"teamId": str(uid("team:Nowhere"))}, 404, "team-not-found"),
    ({"endDate": "2026-06-09T00:00:00Z"}, 400, "negative-range"),
    ({"endDate": "2026-07-20T00:00:00Z"}, 400, "validation"),
    ({"startDate": "0001-01-01T00:00:00Z"}, 400, "validation"),
    ({"endDate": "9999-12-31T00:00:00Z"}, 400, "validation"),
    ({"teamId": "not-an-id"}, 400, "validation"),
])
def test_bad_questions_get_a_problem(cov_api: Api, extra: dict[str, str], status: int,
                                     code: str) -> None:
    query = {"teamId": str(TEAM), "startDate": "2026-06-10T00:00:00Z",
             "endDate": "2026-06-11T00:00:00Z", **extra}
    response = cov_api.get(COVERAGE, user=MANAGER, query_string=query)
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["type"].endswith(f"#{code}")


@pytest.mark.parametrize("user", ["icu.manager@example.com", "provider@example.com"])
def test_only_those_who_see_the_teams_shifts_and_the_forecast_may_ask(cov_api: Api,
                                                                     user: str) -> None:
    response = _coverage(cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00"),
                         user=user)
    assert response.status_code == 403, response.get_json()
    assert response.get_json()["type"].endswith("#unauthorized")


def test_an_administrator_may_ask_for_any_team(cov_api: Api) -> None:
    response = _coverage(cov_api, _local("2026-06-10", "00:00"), _local("2026-06-11", "00:00"),
                         user="admin@example.com")
    assert response.status_code == 200, response.get_json()
