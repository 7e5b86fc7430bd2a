"""Updating a permission rule's conditions (PATCH, beta): checks, rights, and the effect on the
next request."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import START

PERMISSIONS = "/v1/authorization/permissions"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def own_shifts_rule(api: Any) -> dict[str, Any]:
    """The Provider role's rule `view Shift {"provider": "$user.providerId"}`."""
    pages = api.walk(PERMISSIONS, page_size=200, query_string={"subject": "Shift"})
    [rule] = [r for page in pages for r in page
              if r["action"] == "view" and r["conditions"] == {"provider": "$user.providerId"}]
    return rule


def provider_shift_starts(api: Any) -> list[str]:
    """Start dates of every shift the provider sees (open ones included)."""
    pages = api.walk("/v1/shifts", page_size=200, user="provider@example.com")
    return [s["startDate"] for page in pages for s in page if s["provider"] is not None]


def test_update_permission_takes_effect_on_next_request(fresh_api):
    rule = own_shifts_rule(fresh_api)
    before = provider_shift_starts(fresh_api)
    cutoff = (START + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M:%S+0000")
    conditions = {"provider": "$user.providerId", "startDate": {"$gte": cutoff}}
    response = fresh_api.patch(f"{PERMISSIONS}/{rule['id']}", json={"conditions": conditions})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["conditions"] == conditions
    assert (body["id"], body["action"], body["subject"]) == (rule["id"], "view", "Shift")
    after = provider_shift_starts(fresh_api)
    assert after == [s for s in before if s >= cutoff]
    assert 0 < len(after) < len(before)
    assert fresh_api.get(f"{PERMISSIONS}/{rule['id']}").get_json()["conditions"] == conditions


def test_update_permission_accepts_null_conditions(fresh_api):
    rule = own_shifts_rule(fresh_api)
    response = fresh_api.patch(f"{PERMISSIONS}/{rule['id']}", json={"conditions": None})
    assert response.status_code == 200
    assert response.get_json().get("conditions") is None


def test_update_permission_lists_every_condition_error(api):
    rule = own_shifts_rule(api)
    response = api.patch(f"{PERMISSIONS}/{rule['id']}", json={"conditions": {
        "nope": 1, "provider": {"$near": 3}, "$or": [{"team": {"$in": 5}}]}})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    problem = response.get_json()
    paths = [e["path"] for e in problem["errors"]]
    assert paths == ["/conditions/nope", "/conditions/provider/$near",
                     "/conditions/$or/0/team/$in"]
    assert problem["path"] == "/conditions/nope"
    assert "unknown field" in problem["message"]


@pytest.mark.parametrize("conditions", [[1, 2], "x", 3])
def test_update_permission_refuses_non_object_conditions(api, conditions):
    rule = own_shifts_rule(api)
    response = api.patch(f"{PERMISSIONS}/{rule['id']}", json={"conditions": conditions})
    assert response.status_code == 400
    assert response.get_json()["path"] == "/conditions"


def test_update_permission_refuses_missing_conditions(api):
    rule = own_shifts_rule(api)
    response = api.patch(f"{PERMISSIONS}/{rule['id']}", json={})
    assert response.status_code == 400
    assert response.get_json()["path"] == "/conditions"


def test_update_permission_answers_404_for_unknown_rule(api):
    response = api.patch(f"{PERMISSIONS}/{uuid.uuid4()}", json={"conditions": None})
    assert response.status_code == 404
    assert problem_code(response) == "permission-not-found"


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com"])
def test_update_permission_refuses_non_admins(api, user):
    rule = own_shifts_rule(api)
    response = api.patch(f"{PERMISSIONS}/{rule['id']}", user=user, json={"conditions": None})
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
