"""Uploading demand forecast rows: POST /v1/forecasting/demand, limits, checks, read-back."""

from __future__ import annotations

import json
from datetime import timedelta, timezone
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
    assert response.get_json() == {"count": 2, "replaced": 0}
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
    assert response.get_json() == {"count": 1000, "replaced": 0}
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
    response = api.post(DEMAND, json=[row(ghost), row(world.ed_nurse_role), row(ghost, 110)])
    assert response.status_code == 400
    assert [e["path"] for e in response.get_json()["errors"]] == ["/0/role", "/2/role"]


def test_upload_demand_forecast_refuses_infinite_demand(api, world):
    text = json.dumps([row(world.ed_nurse_role)]).replace('"demand": 2', '"demand": Infinity')
    response = api.post(DEMAND, data=text, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["path"] == "/0/demand"


@pytest.mark.parametrize(("user", "role"), [
    ("provider@example.com", "ed_nurse_role"),
    # A manager forecasts their own teams' roles only: ICU is not the ED manager's.
    ("manager@example.com", "icu_nurse_role"),
])
def test_upload_demand_forecast_refuses_others(api, world, user, role):
    response = api.post(DEMAND, user=user, json=[row(getattr(world, role))])
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_upload_demand_forecast_lets_a_manager_forecast_their_team(fresh_api, world):
    response = fresh_api.post(DEMAND, user="manager@example.com",
                              json=[row(world.ed_nurse_role, 500), row(world.ed_doctor_role, 500)])
    assert response.status_code == 201, response.get_json()
    assert response.get_json() == {"count": 2, "replaced": 0}


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
    assert response.get_json() == {"count": 0, "replaced": 0}


def stored(client: Any, since: float) -> list[dict[str, Any]]:
    """Every stored row starting after START + `since` hours, without ids."""
    pages = client.walk(DEMAND, page_size=200, query_string={"startDate": stamp(since)})
    return [{k: v for k, v in r.items() if k != "id"} for page in pages for r in page]


def ed_nurse_demand(client: Any, world: Any, hours: float, length: float = 4) -> list[float]:
    """The ED nurses' hourly coverage demand from START + `hours`."""
    body = client.get("/v1/forecasting/coverage", query_string={
        "teamId": str(world.ed), "roleId": str(world.ed_nurse_role),
        "startDate": stamp(hours), "endDate": stamp(hours + length)}).get_json()
    return [i["demand"] for i in body["roles"][0]["intervals"]]


def test_upload_demand_forecast_twice_does_not_double_demand(fresh_api, world):
    body = [row(world.ed_nurse_role, 400 + 4 * i, demand=2 + i) for i in range(3)]
    first = fresh_api.post(DEMAND, json=body)
    assert first.get_json() == {"count": 3, "replaced": 0}
    ids = sorted(r["id"] for r in fresh_api.get(
        DEMAND, query_string={"startDate": stamp(399)}).get_json()["items"])
    again = fresh_api.post(DEMAND, json=body)
    assert again.status_code == 201, again.get_json()
    assert again.get_json() == {"count": 3, "replaced": 3}
    listed = fresh_api.get(DEMAND, query_string={"startDate": stamp(399)}).get_json()["items"]
    assert sorted(r["id"] for r in listed) == ids  # replaced rows keep their ids
    assert [r["demand"] for r in listed] == [2.0, 3.0, 4.0]
    assert ed_nurse_demand(fresh_api, world, 400) == [2.0, 2.0, 2.0, 2.0]


def test_upload_demand_forecast_replaces_changed_demand_and_extras(fresh_api, world):
    fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 400, demand=2, source="census")])
    response = fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 400, demand=5, note="ward")])
    assert response.get_json() == {"count": 1, "replaced": 1}
    assert stored(fresh_api, 399) == [{"role": str(world.ed_nurse_role), "startDate": stamp(400),
                                       "endDate": stamp(404), "demand": 5.0, "note": "ward"}]
    assert ed_nurse_demand(fresh_api, world, 400) == [5.0, 5.0, 5.0, 5.0]


def test_upload_demand_forecast_matches_windows_written_with_any_offset(fresh_api, world):
    fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 400, demand=2)])
    same = row(world.ed_nurse_role, 400, demand=3)
    as_new_york = {**same, "startDate": (START + timedelta(hours=400)).astimezone(
        timezone(timedelta(hours=-5))).isoformat(), "endDate": (
        START + timedelta(hours=404)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    response = fresh_api.post(DEMAND, json=[as_new_york])
    assert response.get_json() == {"count": 1, "replaced": 1}
    assert [r["demand"] for r in stored(fresh_api, 399)] == [3.0]


def test_upload_demand_forecast_adds_overlapping_different_windows(fresh_api, world):
    fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 400, length=4, demand=2)])
    response = fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 402, length=4, demand=1),
                                            row(world.ed_doctor_role, 400, length=4, demand=1)])
    assert response.get_json() == {"count": 2, "replaced": 0}
    assert len(stored(fresh_api, 399)) == 3
    assert ed_nurse_demand(fresh_api, world, 400, 6) == [2.0, 2.0, 3.0, 3.0, 1.0, 1.0]


def test_upload_demand_forecast_refuses_the_same_window_twice(fresh_api, world):
    fresh_api.post(DEMAND, json=[row(world.ed_nurse_role, 400, demand=2)])
    response = fresh_api.post(DEMAND, json=[
        row(world.ed_nurse_role, 400, demand=1), row(world.ed_nurse_role, 404),
        row(world.ed_nurse_role, 400, demand=3), row(world.ed_doctor_role, 400),
        row(world.ed_nurse_role, 404)])
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    problem = response.get_json()
    assert problem["path"] == "/2"
    assert [(e["path"], e["message"].split(";")[0]) for e in problem["errors"]] == [
        ("/2", "the same role, startDate and endDate as the row at /0"),
        ("/4", "the same role, startDate and endDate as the row at /1")]
    assert [r["demand"] for r in stored(fresh_api, 399)] == [2.0]


def test_upload_demand_forecast_replaces_a_full_batch_in_one_go(fresh_api, world):
    body = [row(world.ed_nurse_role, 200 + i, length=1, demand=1) for i in range(1000)]
    assert fresh_api.post(DEMAND, json=body).get_json() == {"count": 1000, "replaced": 0}
    changed = [{**r, "demand": 2} for r in body[:500]] + [
        row(world.ed_doctor_role, 200 + i, length=1) for i in range(500)]
    response = fresh_api.post(DEMAND, json=changed)
    assert response.get_json() == {"count": 1000, "replaced": 500}
    rows = stored(fresh_api, 199)
    assert len(rows) == 1500
    nurse = [r["demand"] for r in rows if r["role"] == str(world.ed_nurse_role)]
    assert (nurse.count(2.0), nurse.count(1.0)) == (500, 500)


def test_openapi_says_what_an_upload_replaces(api):
    document = api.get("/v1/openapi.json").get_json()
    operation = document["paths"]["/v1/forecasting/demand"]["post"]
    assert ("a row with the same `role`, `startDate` and `endDate`\nas a stored row replaces "
            "that row, which keeps its `id`" in operation["description"])
    result = document["components"]["schemas"]["DemandForecastUploadResult"]
    assert set(result["properties"]) == {"count", "replaced"}
    assert result["x-shiftdesk-extension"] is True
