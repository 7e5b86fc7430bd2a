"""How much of an open shift fills a gap (`neededMinutes` of `GET /v1/shifts/claim-checks`,
extension) against hand-counted figures, on SQLite and PostgreSQL.

This module's copy of the world adds a "Needs" team in New York with two roles: Nurse, with a
forecast of 2 nurses from 7:00 AM to 7:00 PM on Wednesday 10 June 2026 (EDT), and Tech, with
none. Ada works 7:00 AM to 7:00 PM, Bo 7:00 AM to 1:00 PM with approved time off from 11:00 AM
to noon, so the Nurse role is short 11:00-12:00 and 13:00-19:00, covered 07:00-11:00 and
12:00-13:00. Dee's 13:00-19:00 callout counts for nothing. The open shifts:

| open shift             | role  | short minutes in it                    |
|------------------------|-------|----------------------------------------|
| 13:00-19:00            | Nurse | 360 (all of it)                        |
| 13:00-19:00, break 30m | Nurse | 330 (the break is no working time)      |
| 10:00-16:00            | Nurse | 60 + 180 = 240 (part of it)             |
| 07:00-11:00            | Nurse | 0 (demand met)                         |
| 13:00-19:00            | Tech  | 0 (no forecast)                        |
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from app import create_app
from app.api import models as m
from tests.conftest import Api, Template, make_settings
from tests.factories import make_provider, make_role, make_shift, make_team, uid

CHECKS = "/v1/shifts/claim-checks"
NEW_YORK = ZoneInfo("America/New_York")
DAY = "2026-06-10"
CALLER = "eve.needs@example.com"


def _local(clock: str) -> datetime:
    return datetime.fromisoformat(f"{DAY}T{clock}").replace(tzinfo=NEW_YORK).astimezone(UTC)


@pytest.fixture(scope="module")
def needs_api(template: Template, signing_key_path: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, dict[str, str]]]:
    url, drop = template.copy(tmp_path_factory.mktemp("needed"))
    app = create_app(make_settings(url, signing_key_path))
    api = Api(app, template.world, template.backend)
    opened: dict[str, str] = {}
    with api.db.unit_of_work(write=True) as session:
        rbac = {r.name: r for r in session.scalars(select(m.RbacRole))}
        team = make_team(session, "Needs")
        nurse, tech = make_role(session, team, "Nurse"), make_role(session, team, "Tech")
        people = {name: make_provider(session, f"{name.lower()}.needs@example.com", team, name,
                                      default_role_id=nurse.id)
                  for name in ("Ada", "Bo", "Dee", "Eve")}
        session.flush()
        for person in people.values():
            person.user.rbac_roles = [rbac["Provider"]]
            person.roles = [nurse, tech]

        def shift(who: str | None, start: str, end: str, role: m.Role = nurse,
                  break_at: int | None = None, **kw: Any) -> m.Shift:
            begin, finish = _local(start), _local(end)
            hours = int((finish - begin) / timedelta(hours=1))
            return make_shift(session, provider=people[who] if who else None, team=team,
                              role=role, start=begin, hours=hours, break_at=break_at, **kw)

        shift("Ada", "07:00", "19:00")
        shift("Bo", "07:00", "13:00")
        shift("Dee", "13:00", "19:00", is_callout=True)
        made = {"gap": shift(None, "13:00", "19:00"),
                "gap_with_break": shift(None, "13:00", "19:00", break_at=2),  # 15:00-15:30
                "part": shift(None, "10:00", "16:00"),
                "met": shift(None, "07:00", "11:00"),
                "no_forecast": shift(None, "13:00", "19:00", role=tech)}
        session.add(m.TimeOffRequest(
            id=uid("tor:needs:Bo"), status="approved", start_date=_local("11:00"),
            end_date=_local("12:00"), policy_id=uid("policy:pto"), provider_id=people["Bo"].id,
            paid_hours=1.0, is_full_day=False))
        session.add(m.DemandForecastRow(role_id=nurse.id, start_date=_local("07:00"),
                                        end_date=_local("19:00"), demand=2.0))
        session.flush()
        opened = {key: str(s.id) for key, s in made.items()}
    yield api, opened
    app.extensions["shiftdesk"].db.dispose()
    drop()


def _checks(api: Api, ids: list[str], user: str = CALLER) -> dict[str, dict[str, Any]]:
    response = api.get(CHECKS, user=user, query_string={"shiftIds": ",".join(ids)})
    assert response.status_code == 200, response.get_json()
    items = response.get_json()["items"]
    assert [i["shiftId"] for i in items] == ids
    return {i["shiftId"]: i for i in items}


def test_a_shift_in_a_gap_is_needed_all_through(needs_api) -> None:
    api, opened = needs_api
    checks = _checks(api, [opened["gap"]])
    assert checks[opened["gap"]]["neededMinutes"] == 360


def test_a_break_in_a_needed_shift_is_not_counted(needs_api) -> None:
    api, opened = needs_api
    assert _checks(api, [opened["gap_with_break"]])[opened["gap_with_break"]][
        "neededMinutes"] == 330


def test_a_shift_partly_in_a_gap_counts_only_the_short_minutes(needs_api) -> None:
    api, opened = needs_api
    # 11:00-12:00 (Bo's time off) and 13:00-16:00; 10:00-11:00 and 12:00-13:00 are covered.
    assert _checks(api, [opened["part"]])[opened["part"]]["neededMinutes"] == 240


def test_a_shift_where_demand_is_met_is_not_needed(needs_api) -> None:
    api, opened = needs_api
    assert _checks(api, [opened["met"]])[opened["met"]]["neededMinutes"] == 0


def test_a_shift_of_a_role_without_forecast_is_not_needed(needs_api) -> None:
    api, opened = needs_api
    assert _checks(api, [opened["no_forecast"]])[opened["no_forecast"]]["neededMinutes"] == 0


def test_every_shift_answered_at_once_and_nothing_but_the_minutes_shown(needs_api) -> None:
    api, opened = needs_api
    ids = [opened[k] for k in ("met", "gap", "no_forecast", "part", "gap_with_break")]
    checks = _checks(api, ids)
    assert [checks[i]["neededMinutes"] for i in ids] == [0, 360, 0, 240, 330]
    for item in checks.values():
        assert set(item) == {"shiftId", "claimable", "refusals", "neededMinutes"}
    # The caller, a provider, may not read the forecast the minutes come from.
    denied = api.get("/v1/forecasting/demand", user=CALLER)
    assert denied.status_code == 403, denied.get_json()
