"""Availability extensions: /v1/availabilities, /v1/availability-exceptions and
/v1/availability/windows (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.problems import problem_of

PATTERNS = "/v1/availabilities"
EXCEPTIONS = "/v1/availability-exceptions"
WINDOWS = "/v1/availability/windows"
PROVIDER = "provider@example.com"
MANAGER = "manager@example.com"
ICU_MANAGER = "icu.manager@example.com"
ICU_NURSE = "icu.nurse@example.com"
WEEK = [{"weekday": "monday", "startTime": "07:00", "endTime": "15:00", "kind": "unavailable"},
        {"weekday": "tuesday", "startTime": "09:00", "endTime": "17:00", "kind": "preferred"}]



def _pattern(api: Any, user: str = PROVIDER, **body: Any) -> dict[str, Any]:
    response = api.post(PATTERNS, user=user,
                        json={"effectiveFrom": "2026-03-01", "rules": WEEK, **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_provider_creates_own_pattern_and_reads_it_back(fresh_api):
    created = _pattern(fresh_api)
    assert created["providerId"] == str(fresh_api.world.provider)
    assert (created["version"], created["effectiveFrom"], created["rules"]) == (
        1, "2026-03-01", WEEK)
    location = f"{PATTERNS}/{created['id']}"
    assert fresh_api.get(location, user=PROVIDER).get_json() == created
    listed = fresh_api.get(PATTERNS, user=PROVIDER).get_json()
    assert [p["id"] for p in listed["items"]] == [created["id"]]


def test_manager_views_team_pattern_but_other_team_manager_does_not(fresh_api):
    created = _pattern(fresh_api)
    assert fresh_api.get(f"{PATTERNS}/{created['id']}", user=MANAGER).status_code == 200
    problem_of(fresh_api.get(f"{PATTERNS}/{created['id']}", user=ICU_MANAGER), 403, "unauthorized")
    assert fresh_api.get(PATTERNS, user=ICU_MANAGER).get_json()["items"] == []
    assert fresh_api.get(PATTERNS, user=ICU_NURSE).get_json()["items"] == []


def test_manager_may_not_write_a_providers_pattern(fresh_api):
    body = {"providerId": str(fresh_api.world.provider), "effectiveFrom": "2026-03-01"}
    problem_of(fresh_api.post(PATTERNS, user=MANAGER, json=body), 403, "unauthorized")
    problem_of(fresh_api.post(PATTERNS, user=ICU_NURSE, json=body), 403, "unauthorized")


def test_admin_creates_for_a_provider_and_unknown_provider_is_not_found(fresh_api):
    assert _pattern(fresh_api, user="admin@example.com",
                    providerId=str(fresh_api.world.provider))["providerId"] == str(
        fresh_api.world.provider)
    problem_of(fresh_api.post(PATTERNS, json={"providerId": str(uuid.uuid4()),
                                            "effectiveFrom": "2026-03-01"}),
             404, "provider-not-found")


@pytest.mark.parametrize(("body", "path"), [
    ({"effectiveFrom": "0001-01-01"}, "/effectiveFrom"),
    ({"effectiveFrom": "9999-12-31"}, "/effectiveFrom"),
    ({"effectiveFrom": "2026-03-01", "rules": [
        {"weekday": "monday", "startTime": "10:00", "endTime": "09:00", "kind": "available"}]},
     "/rules/0/endTime"),
    ({"effectiveFrom": "2026-03-01", "rules": [
        *WEEK, {"weekday": "monday", "startTime": "14:00", "endTime": "16:00",
                "kind": "available"}]}, "/rules/2/startTime"),
    ({"effectiveFrom": "2026-03-01", "rules": [
        {"weekday": "someday", "startTime": "10:00", "endTime": "11:00", "kind": "available"}]},
     "/rules/0/weekday"),
    ({"effectiveFrom": "2026-03-01", "rules": [
        {"weekday": "monday", "startTime": "25:00", "endTime": "26:00", "kind": "available"}]},
     "/rules/0/startTime"),
])
def test_create_pattern_rejects_bad_input_with_a_path(fresh_api, body, path):
    problem = problem_of(fresh_api.post(PATTERNS, user=PROVIDER, json=body), 400, "validation")
    assert problem["path"] == path


def test_update_pattern_is_versioned(fresh_api):
    created = _pattern(fresh_api)
    url = f"{PATTERNS}/{created['id']}"
    updated = fresh_api.patch(url, user=PROVIDER, json={"version": 1, "rules": WEEK[:1]})
    assert updated.status_code == 200, updated.get_json()
    assert (updated.get_json()["version"], updated.get_json()["rules"]) == (2, WEEK[:1])
    stale = problem_of(fresh_api.patch(url, user=PROVIDER, json={"version": 1, "rules": []}),
                     409, "version-conflict")
    assert stale["currentVersion"] == 2
    problem_of(fresh_api.delete(f"{url}?version=1", user=PROVIDER), 409, "version-conflict")
    assert fresh_api.delete(f"{url}?version=2", user=PROVIDER).status_code == 204
    problem_of(fresh_api.get(url, user=PROVIDER), 404, "availability-not-found")
    problem_of(fresh_api.patch(url, user=PROVIDER, json={}), 404, "availability-not-found")


def test_exceptions_crud_with_versions_and_not_found(fresh_api):
    response = fresh_api.post(EXCEPTIONS, user=PROVIDER, json={
        "startDate": "2026-03-10", "endDate": "2026-03-12", "note": "Conference"})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert response.headers["Location"].endswith(f"{EXCEPTIONS}/{created['id']}")
    assert (created["kind"], created["note"], created["version"]) == (
        "unavailable", "Conference", 1)
    url = f"{EXCEPTIONS}/{created['id']}"
    changed = fresh_api.patch(url, user=PROVIDER, json={"version": 1, "note": None})
    assert (changed.get_json()["note"], changed.get_json()["version"]) == (None, 2)
    problem_of(fresh_api.patch(url, user=PROVIDER, json={"version": 1}), 409, "version-conflict")
    problem_of(fresh_api.patch(url, user=PROVIDER, json={"endDate": "2026-03-01"}),
             400, "negative-range")
    listed = fresh_api.get(f"{EXCEPTIONS}?startDate=2026-03-12&endDate=2026-03-20",
                           user=MANAGER).get_json()
    assert [e["id"] for e in listed["items"]] == [created["id"]]
    assert fresh_api.get(f"{EXCEPTIONS}?startDate=2026-03-13", user=MANAGER).get_json()[
        "items"] == []
    problem_of(fresh_api.get(url, user=ICU_MANAGER), 403, "unauthorized")
    assert fresh_api.delete(url, user=PROVIDER).status_code == 204
    problem_of(fresh_api.get(url, user=PROVIDER), 404, "availability-exception-not-found")
    problem_of(fresh_api.delete(url, user=PROVIDER), 404, "availability-exception-not-found")


def test_create_exception_rejects_reversed_and_unsupported_dates(fresh_api):
    problem_of(fresh_api.post(EXCEPTIONS, user=PROVIDER, json={
        "startDate": "2026-03-10", "endDate": "2026-03-09"}), 400, "negative-range")
    body = problem_of(fresh_api.post(EXCEPTIONS, user=PROVIDER, json={
        "startDate": "0001-01-01", "endDate": "9999-12-31"}), 400, "validation")
    assert {e["path"] for e in body["errors"]} == {"/startDate", "/endDate"}
    problem_of(fresh_api.post(EXCEPTIONS, user=PROVIDER, json={
        "startDate": "2026-03-10", "endDate": "2026-03-10", "note": "x" * 501}),
        400, "validation")


def test_windows_combine_pattern_and_exceptions_for_a_team(fresh_api):
    _pattern(fresh_api)
    fresh_api.post(EXCEPTIONS, user=PROVIDER, json={
        "startDate": "2026-03-03", "endDate": "2026-03-03", "note": "Dentist"})
    team = fresh_api.world.ed
    response = fresh_api.get(f"{WINDOWS}?teamId={team}&startDate=2026-03-02&endDate=2026-03-03",
                             user=MANAGER)
    assert response.status_code == 200, response.get_json()
    mine = {i["providerId"]: i["windows"] for i in response.get_json()["items"]}
    assert mine[str(fresh_api.world.provider)] == [
        {"startDate": "2026-03-02T12:00:00+0000", "endDate": "2026-03-02T20:00:00+0000",
         "kind": "unavailable", "reason": "weekly pattern 07:00 to 15:00", "source": "pattern"},
        {"startDate": "2026-03-03T05:00:00+0000", "endDate": "2026-03-04T05:00:00+0000",
         "kind": "unavailable", "reason": "Dentist", "source": "exception"},
    ]
    own = fresh_api.get(f"{WINDOWS}?providerId={fresh_api.world.provider}"
                        "&startDate=2026-03-02&endDate=2026-03-02", user=PROVIDER).get_json()
    assert len(own["items"][0]["windows"]) == 1


@pytest.mark.parametrize(("query", "status", "code"), [
    ("startDate=2026-03-01&endDate=2026-03-02", 400, "validation"),
    ("teamId={team}&startDate=2026-03-01&endDate=2026-04-01", 400, "validation"),
    ("teamId={team}&startDate=2026-03-02&endDate=2026-03-01", 400, "negative-range"),
    ("teamId={team}&startDate=0001-01-01&endDate=0001-01-02", 400, "validation"),
    (f"teamId={uuid.UUID(int=7)}&startDate=2026-03-01&endDate=2026-03-02", 404,
     "team-not-found"),
    (f"providerId={uuid.UUID(int=7)}&startDate=2026-03-01&endDate=2026-03-02", 404,
     "provider-not-found"),
])
def test_windows_reject_bad_queries(api, query, status, code):
    problem_of(api.get(f"{WINDOWS}?{query.format(team=api.world.ed)}", user=MANAGER), status, code)


def test_windows_of_another_teams_provider_are_unauthorized(api):
    problem_of(api.get(f"{WINDOWS}?providerId={api.world.provider}&startDate=2026-03-01"
                     "&endDate=2026-03-02", user=ICU_MANAGER), 403, "unauthorized")


def test_availability_codes_are_listed_on_the_errors_page(api):
    document = api.get("/v1/openapi.json").get_json()
    assert "/v1/availability/windows" in document["paths"]
    operation = document["paths"]["/v1/availabilities/{availabilityId}"]["get"]
    assert operation.get("x-shiftdesk-extension") is True


def test_every_successful_update_raises_the_version(fresh_api):
    created = _pattern(fresh_api)
    url = f"{PATTERNS}/{created['id']}"
    same = fresh_api.patch(url, user=PROVIDER, json={"version": 1, "rules": WEEK})
    assert same.get_json()["version"] == 2
