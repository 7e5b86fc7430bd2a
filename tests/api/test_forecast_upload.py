"""Uploading demand forecast rows: POST /v1/forecasting/demand, limits, checks, read-back."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import START

DEMAND = "/v1/forecasting/demand"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def stamp(hours: float) -> str:
    """START plus some hours, as the API writes it."""
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S+0000")


def row(role: Any, hours: float = 100, length: float = 4, demand: float = 2,
        **extra: Any) -> dict[str, Any]:
    """One upload row starting `hours` after START."""
    return {"role": str(role), "startDate": stamp(hours), "endDate": stamp(hours + length),
            "demand": demand, **extra}


def test_upload_demand_forecast_stores_rows_with_extra_properties(fresh_api, world):
    body = [row(world.ed_nurse_role, 100, demand=3, source="census", confidence=0.7),
            row(world.icu_nurse_role, 104, demand=0)]
    response = fresh_api.post(DEMAND, json=body)
    assert response.status_code == 201, response.get_json()
    assert response.get_json() == {"count": 2}
    assert response.headers["Location"] == DEMAND
    listed = fresh_api.get(DEMAND, query_string={"startDate": stamp(99)}).get_json()["items"]
    assert len(listed) == 2
    first = listed[0]
    assert first.pop("id")
    assert first == {"role": str(world.ed_nurse_role), "startDate": stamp(100),
                     "endDate": stamp(104), "demand": 3.0, "source": "census",
                     "confidence": 0.7}


def test_upload_demand_forecast_accepts_max_batch(fresh_api, world):
    body = [row(world.ed_nurse_role, 200 + i, length=1) for i in range(1000)]
    response = fresh_api.post(DEMAND, json=body)
    assert response.status_code == 201, response.get_json()
    assert response.get_json() == {"count": 1000}
    pages = fresh_api.walk(DEMAND, page_size=200, query_string={"startDate": stamp(199)})
    assert sum(len(p) for p in pages) == 1000


def test_upload_demand_forecast_refuses_batch_over_limit(api, world):
    body = [row(world.ed_nurse_role, 200 + i, length=1) for i in range(1001)]
    response = api.post(DEMAND, json=body)
    assert response.status_code == 400
    assert problem_code(response) == "batch-size-exceeded"
    problem = response.get_json()
    assert (problem["batchSize"], problem["maxBatchSize"]) == (1001, 1000)


@pytest.mark.parametrize(("rows", "code", "path"), [
    (lambda w: [row(w.ed_nurse_role), row(w.ed_nurse_role, demand=-1)], "validation",
     "/1/demand"),
    (lambda w: [row(w.ed_nurse_role, length=-2)], "negative-range", "/0/endDate"),
    (lambda w: [row(w.ed_nurse_role, length=0)], "negative-range", "/0/endDate"),
    (lambda w: [row(w.ed_nurse_role), row("5d41402a-bc4b-4a76-b971-9d911017c592")],
     "validation", "/1/role"),
    (lambda w: [row("not-a-uuid")], "validation", "/0/role"),
    (lambda w: [{"role": str(w.ed_nurse_role), "startDate": stamp(1)}], "validation",
     "/0/endDate"),
    (lambda w: {"role": str(w.ed_nurse_role)}, "validation", "/"),
])
def test_upload_demand_forecast_refuses_bad_rows(api, world, rows, code, path):
    response = api.post(DEMAND, json=rows(world))
    assert response.status_code == 400, response.get_json()
    assert problem_code(response) == code
    assert response.get_json()["path"] == path


def test_upload_demand_forecast_lists_every_unknown_role(api, world):
    ghost = "5d41402a-bc4b-4a76-b971-9d911017c592"
    response = api.post(DEMAND, json=[row(ghost), row(world.ed_nurse_role), row(ghost)])
    assert response.status_code == 400
    assert [e["path"] for e in response.get_json()["errors"]] == ["/0/role", "/2/role"]


def test_upload_demand_forecast_refuses_infinite_demand(api, world):
    text = json.dumps([row(world.ed_nurse_role)]).replace('"demand": 2', '"demand": Infinity')
    response = api.post(DEMAND, data=text, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["path"] == "/0/demand"


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com"])
def test_upload_demand_forecast_refuses_non_admins(api, world, user):
    response = api.post(DEMAND, user=user, json=[row(world.ed_nurse_role)])
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_upload_demand_forecast_stores_nothing_when_one_row_fails(fresh_api, world):
    response = fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 300),
                                            row(world.ed_nurse_role, 304, length=-1)])
    assert response.status_code == 400
    listed = fresh_api.get(DEMAND, query_string={"startDate": stamp(299)}).get_json()["items"]
    assert listed == []


def test_upload_demand_forecast_accepts_empty_array(api):
    # Nothing to store; the transaction commits no row, so the shared database stays as it is.
    response = api.post(DEMAND, json=[])
    assert response.status_code == 201
    assert response.get_json() == {"count": 0}
