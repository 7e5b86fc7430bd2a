"""Reading demand forecast rows back through /v1 (extension): fields, filters, pages, rules."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

from app.api import models as m
from tests.factories import START, make_user

DEMAND = "/v1/forecasting/demand"


def wire(value: Any) -> str:
    """A datetime as the API writes it."""
    return value.strftime("%Y-%m-%dT%H:%M:%S+0000")


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def items(response: Any) -> list[dict[str, Any]]:
    """A page's items, asserting the page came back."""
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]


def add_rows(api: Any, specs: list[tuple[uuid.UUID, int, float]], **extra: Any) -> list[str]:
    """Store rows `(role, hours after START, demand)`, each 4 hours long; return their ids."""
    made: list[str] = []
    with api.db.unit_of_work(write=True) as session:
        for role, hours, demand in specs:
            start = START + timedelta(hours=hours)
            row = m.DemandForecastRow(role_id=role, start_date=start,
                                      end_date=start + timedelta(hours=4), demand=demand,
                                      extra=dict(extra))
            session.add(row)
            session.flush()
            made.append(str(row.id))
    return made


def test_list_demand_forecast_returns_stored_row(api, world):
    body = api.get(DEMAND).get_json()
    assert body["cursor"] is None
    (row,) = body["items"]
    assert uuid.UUID(row.pop("id"))
    assert row == {
        "role": str(world.ed_nurse_role),
        "startDate": "2026-03-02T12:00:00+0000",
        "endDate": "2026-03-03T00:00:00+0000",
        "demand": 4.0,
    }


@pytest.mark.parametrize("user", ["manager@example.com", "icu.manager@example.com"])
def test_list_demand_forecast_allows_managers(api, user):
    assert len(items(api.get(DEMAND, user=user))) == 1


@pytest.mark.parametrize("user", ["provider@example.com", "scheduler@example.com",
                                  "bot@example.com"])
def test_list_demand_forecast_refuses_others(api, user):
    response = api.get(DEMAND, user=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
    assert response.get_json()["action"] == "view"
    assert response.get_json()["resource"] == "DemandForecast"


def test_list_demand_forecast_filters_by_role(api, world):
    assert len(items(api.get(DEMAND, query_string={"role": str(world.ed_nurse_role)}))) == 1
    assert items(api.get(DEMAND, query_string={"role": str(world.icu_nurse_role)})) == []


def test_list_demand_forecast_filters_by_overlapping_window(api):
    inside = {"startDate": wire(START + timedelta(hours=11)),
              "endDate": wire(START + timedelta(hours=13))}
    assert len(items(api.get(DEMAND, query_string=inside))) == 1
    after = {"startDate": wire(START + timedelta(hours=12))}
    assert items(api.get(DEMAND, query_string=after)) == []
    before = {"endDate": wire(START)}
    assert items(api.get(DEMAND, query_string=before)) == []


def test_list_demand_forecast_rejects_negative_range(api):
    response = api.get(DEMAND, query_string={"startDate": wire(START + timedelta(hours=1)),
                                             "endDate": wire(START)})
    assert response.status_code == 400
    assert problem_code(response) == "negative-range"
    assert response.get_json()["path"] == "endDate"


@pytest.mark.parametrize(("param", "value"), [
    ("role", "nurse"), ("startDate", "2026-03-02"), ("pageSize", "0"), ("pageSize", "201"),
])
def test_list_demand_forecast_rejects_malformed_query(api, param, value):
    response = api.get(DEMAND, query_string={param: value})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == param


def test_list_demand_forecast_requires_token(api):
    assert api.get(DEMAND, user=None).status_code == 401


def test_list_demand_forecast_walks_pages_by_start(fresh_api, world):
    (world_row,) = items(fresh_api.get(DEMAND))
    made = add_rows(fresh_api, [(world.icu_nurse_role, 30, 2), (world.ed_nurse_role, 6, 1.5),
                                (world.ed_doctor_role, 6, 1), (world.ed_nurse_role, -6, 0)])
    expected = [made[3], world_row["id"], *sorted(made[1:3]), made[0]]  # equal starts: by id
    for size in (1, 2, 200):
        pages = fresh_api.walk(DEMAND, page_size=size)
        assert [row["id"] for page in pages for row in page] == expected, size
        assert all(len(page) <= size for page in pages)


def test_list_demand_forecast_shows_extra_properties(fresh_api, world):
    (row_id,) = add_rows(fresh_api, [(world.icu_nurse_role, 48, 3)], ward="3B", role="ignored")
    (row,) = items(fresh_api.get(DEMAND, query_string={"role": str(world.icu_nurse_role)}))
    assert row["id"] == row_id
    assert row["ward"] == "3B"
    assert row["role"] == str(world.icu_nurse_role)
    assert row["demand"] == 3.0


def test_list_demand_forecast_issues_same_statements_whatever_page_size(fresh_api, world):
    add_rows(fresh_api, [(world.ed_nurse_role, h, 1) for h in range(0, 40, 8)])
    with fresh_api.count_queries() as small:
        assert len(items(fresh_api.get(DEMAND, query_string={"pageSize": 1}))) == 1
    with fresh_api.count_queries() as large:
        assert len(items(fresh_api.get(DEMAND, query_string={"pageSize": 6}))) == 6
    assert len(small) == len(large)


def test_list_demand_forecast_follows_conditional_rule(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        role = m.RbacRole(name="ICU planner", permissions=[
            m.Permission(action="view", subject="DemandForecast",
                         conditions={"role": str(world.icu_nurse_role)}),
        ])
        planner = make_user(session, "planner@example.com", "Pia Planner")
        planner.rbac_roles = [role]
    icu = add_rows(fresh_api, [(world.icu_nurse_role, 0, 2), (world.icu_nurse_role, 24, 2)])
    seen = items(fresh_api.get(DEMAND, user="planner@example.com"))
    assert [row["id"] for row in seen] == icu
