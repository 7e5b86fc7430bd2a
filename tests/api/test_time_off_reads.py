"""Reading time off: policies, requests, the request count, and who may see which request.

GET /v1/time-off/policies[/{policyId}], GET /v1/time-off/requests[/{requestId}] and
GET /v1/time-off/requests/count: fields and formats, pagination, filters, permissions, problems.
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import START, uid
from tests.problems import problem_of

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
REQUESTS = "/v1/time-off/requests"
POLICIES = "/v1/time-off/policies"
REQUEST_KEYS = {"id", "createdAt", "status", "startDate", "endDate", "policyId", "policy",
                "providerId", "note", "dailyHours", "paidHours", "conflictResolution",
                "isFullDay",
                # extensions: a provider's request to cancel approved leave, and its decline
                "cancellationRequestedAt", "cancellationDeclinedAt",
                "cancellationDeclineReason"}
REJECTION_KEYS = {"rejectedById", "rejectedBy", "rejectionReason"}
POLICY_KEYS = {"id", "createdAt", "type", "name", "description", "accrualUnit", "payCodeId",
               "payCode"}


def _wire(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")



def _requests(api: Any, user: str = "admin@example.com", page_size: int = 200,
              **query: Any) -> list[dict[str, Any]]:
    pages = api.walk(REQUESTS, page_size=page_size, user=user, query_string=query)
    return [item for page in pages for item in page]


def _get(api: Any, path: str, user: str = "admin@example.com", **query: Any) -> dict[str, Any]:
    response = api.get(path, user=user, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


# Policies ---------------------------------------------------------------------------------------


def test_list_policies_returns_spec_fields_with_pay_code(api):
    body = _get(api, POLICIES, user="provider@example.com")

    assert body["cursor"] is None
    pto, sick = body["items"]
    assert set(pto) == set(sick) == POLICY_KEYS
    assert (pto["name"], pto["type"], pto["accrualUnit"]) == ("Paid time off", "paid-time-off",
                                                             "hours")
    assert pto["id"] == str(uid("policy:pto"))
    assert pto["description"] == "Accrues every pay period"
    assert TIMESTAMP.match(pto["createdAt"])
    assert pto["payCodeId"] == str(uid("pay:PTO"))
    assert pto["payCode"] == {"id": str(uid("pay:PTO")), "name": "Paid time off",
                              "shorthandName": "PTO", "hexColor": "#72B7B2", "type": "hours",
                              "value": 1.0}
    assert (sick["name"], sick["type"], sick["accrualUnit"]) == ("Sick leave", "sick", "days")
    assert sick["description"] is None
    assert sick["payCodeId"] is None
    assert sick["payCode"] is None


def test_list_policies_walks_same_ordered_set_whatever_the_page_size(api):
    walks = {size: api.walk(POLICIES, page_size=size) for size in (1, 200)}
    flat = {size: [p["name"] for page in pages for p in page] for size, pages in walks.items()}

    assert flat[1] == flat[200] == ["Paid time off", "Sick leave"]
    assert len(walks[1]) == 2


def test_get_policy_returns_the_listed_policy(api):
    listed = _get(api, POLICIES)["items"][0]

    assert _get(api, f"{POLICIES}/{listed['id']}", user="provider@example.com") == listed


def test_get_policy_answers_not_found_for_unknown_id(api):
    response = api.get(f"{POLICIES}/{uuid.uuid4()}")

    problem_of(response, 404, "time-off-policy-not-found")


def test_get_policy_rejects_malformed_id(api):
    response = api.get(f"{POLICIES}/42")

    assert problem_of(response, 400, "validation")["path"] == "policyId"


def test_list_policies_returns_empty_page_when_not_permitted(api):
    body = _get(api, POLICIES, user="scheduler@example.com")

    assert body == {"items": [], "cursor": None}


# Request fields ---------------------------------------------------------------------------------


def test_get_request_shows_rejection_when_rejected(api, world):
    body = _get(api, f"{REQUESTS}/{world.ids['request_rejected']}")

    assert set(body) == REQUEST_KEYS | REJECTION_KEYS
    day = START + timedelta(days=26, hours=-12)
    assert body["status"] == "rejected"
    assert body["startDate"] == _wire(day)
    assert body["endDate"] == _wire(day + timedelta(days=1))
    assert TIMESTAMP.match(body["createdAt"])
    assert body["dailyHours"] == [{"date": "2026-03-28T00:00:00.000Z", "duration": 8.0}]
    assert body["paidHours"] == 8.0
    assert body["isFullDay"] is True
    assert body["conflictResolution"] is None
    assert body["note"] == "rejected request"
    assert body["providerId"] == str(world.provider)
    assert body["rejectedById"] == str(world.manager)
    assert body["rejectedBy"] == {"id": str(world.manager), "type": "user",
                                  "name": "Morgan Manager", "email": "manager@example.com",
                                  "status": "active", "isAdmin": False}
    assert body["rejectionReason"] == "Short-staffed that week"


def test_get_request_embeds_policy_not_provider(api, world):
    body = _get(api, f"{REQUESTS}/{world.ids['request_pending']}")
    policy = _get(api, f"{POLICIES}/{uid('policy:pto')}")

    assert body["policyId"] == policy["id"]
    assert body["policy"] == policy
    assert "provider" not in body


@pytest.mark.parametrize("status", ["pending", "approved", "cancelled"])
def test_get_request_omits_rejection_unless_rejected(api, world, status):
    body = _get(api, f"{REQUESTS}/{world.ids[f'request_{status}']}")

    assert body["status"] == status
    assert set(body) == REQUEST_KEYS
    assert "syncError" not in body


def test_get_request_shows_conflict_resolution_and_null_full_day(api, world):
    approved = _get(api, f"{REQUESTS}/{world.ids['request_approved']}")
    icu = _get(api, f"{REQUESTS}/{world.ids['request_icu']}")

    assert approved["conflictResolution"] == "keep"
    assert icu["isFullDay"] is None
    assert icu["note"] is None
    assert icu["dailyHours"] == [{"date": "2026-03-23T00:00:00.000Z", "duration": 8.0}]


def test_list_requests_returns_same_objects_as_get(api, world):
    listed = {r["id"]: r for r in _requests(api)}

    assert set(listed) == {str(world.ids[f"request_{s}"]) for s in
                           ("pending", "approved", "rejected", "cancelled", "icu")}
    rejected = listed[str(world.ids["request_rejected"])]
    assert rejected == _get(api, f"{REQUESTS}/{rejected['id']}")


# Request pagination -----------------------------------------------------------------------------


def test_list_requests_walks_same_ordered_set_whatever_the_page_size(api):
    walks = {size: api.walk(REQUESTS, page_size=size) for size in (1, 7, 200)}
    flat = {size: [r["id"] for page in pages for r in page] for size, pages in walks.items()}

    assert flat[1] == flat[7] == flat[200]
    assert len(flat[1]) == len(set(flat[1])) == 5
    assert len(walks[1]) == 5
    items = [r for page in walks[200] for r in page]
    keys = [(r["startDate"], r["id"]) for r in items]
    assert keys == sorted(keys)


@pytest.mark.parametrize("size", ["0", "201"])
def test_list_requests_rejects_page_size_out_of_range(api, size):
    response = api.get(REQUESTS, query_string={"pageSize": size})

    assert problem_of(response, 400, "validation")["path"] == "pageSize"


def test_list_requests_rejects_tampered_cursor(api):
    cursor = api.get(REQUESTS, query_string={"pageSize": 1}).get_json()["cursor"]
    tampered = "x" + cursor[1:] if not cursor.startswith("x") else "y" + cursor[1:]

    response = api.get(REQUESTS, query_string={"pageSize": 1, "cursor": tampered})

    assert problem_of(response, 400, "validation")["path"] == "cursor"


def test_list_requests_rejects_cursor_of_another_list(api):
    cursor = api.get("/v1/shifts", query_string={"pageSize": 1}).get_json()["cursor"]

    response = api.get(REQUESTS, query_string={"pageSize": 1, "cursor": cursor})

    assert problem_of(response, 400, "validation")["path"] == "cursor"


# Request filters --------------------------------------------------------------------------------


def test_list_requests_filters_by_status_list(api, world):
    pending = _requests(api, status="pending")
    two = _requests(api, status="pending,rejected")
    repeated = api.get(REQUESTS, query_string=[("status", "pending"), ("status", "rejected")])

    assert {r["id"] for r in pending} == {str(world.ids["request_pending"]),
                                          str(world.ids["request_icu"])}
    assert {r["status"] for r in two} == {"pending", "rejected"}
    assert len(two) == 3
    assert [r["id"] for r in repeated.get_json()["items"]] == [r["id"] for r in two]


def test_list_requests_rejects_unknown_status(api):
    response = api.get(REQUESTS, query_string={"status": "pending,maybe"})

    assert problem_of(response, 400, "validation")["path"] == "status"


def test_list_requests_filters_by_provider_policy_and_team(api, world):
    by_provider = _requests(api, providerId=str(world.icu_nurse))
    by_team = _requests(api, teamId=str(world.ed))
    by_policy = _requests(api, policyId=str(uid("policy:sick")))

    assert [r["id"] for r in by_provider] == [str(world.ids["request_icu"])]
    assert {r["providerId"] for r in by_team} == {str(world.provider)}
    assert len(by_team) == 4
    assert by_policy == []


def test_list_requests_excludes_requests_touching_the_window_edges(api, world):
    day = START + timedelta(days=20, hours=-12)  # the pending request covers [day, day + 1)

    mine = {"providerId": str(world.provider)}

    edges = _requests(api, **mine, startDate=_wire(day + timedelta(days=1)),
                      endDate=_wire(day + timedelta(days=3)))
    inside = _requests(api, **mine, startDate=_wire(day + timedelta(hours=23)),
                       endDate=_wire(day + timedelta(days=4)))

    assert edges == []  # pending ends at startDate, approved starts at endDate
    assert [r["status"] for r in inside] == ["pending", "approved"]


@pytest.mark.parametrize("path", [REQUESTS, f"{REQUESTS}/count"])
def test_requests_reject_negative_range(api, path):
    response = api.get(path, query_string={"startDate": "2026-03-25T00:00:00Z",
                                           "endDate": "2026-03-24T00:00:00Z"})

    assert problem_of(response, 400, "negative-range")["path"] == "endDate"


# Who sees what ----------------------------------------------------------------------------------


def test_list_requests_shows_provider_only_own_requests(api, world):
    requests = _requests(api, user="provider@example.com")

    assert len(requests) == 4
    assert {r["providerId"] for r in requests} == {str(world.provider)}


def test_list_requests_shows_manager_their_team_not_icu(api, world):
    ed = _requests(api, user="manager@example.com")
    icu = _requests(api, user="icu.manager@example.com")

    assert str(world.ids["request_icu"]) not in {r["id"] for r in ed}
    assert {r["providerId"] for r in ed} == {str(world.provider)}
    assert len(ed) == 4
    assert [r["id"] for r in icu] == [str(world.ids["request_icu"])]


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com"])
def test_get_request_refuses_request_outside_permissions(api, world, user):
    response = api.get(f"{REQUESTS}/{world.ids['request_icu']}", user=user)

    body = problem_of(response, 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("view", "TimeOffRequest")


def test_get_request_allows_icu_manager_the_icu_request(api, world):
    body = _get(api, f"{REQUESTS}/{world.ids['request_icu']}", user="icu.manager@example.com")

    assert body["providerId"] == str(world.icu_nurse)


# Count ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("user", "filters"),
    [
        ("admin@example.com", {}),
        ("admin@example.com", {"status": "pending,approved"}),
        ("admin@example.com", {"teamId": str(uid("team:Intensive Care"))}),
        ("admin@example.com", {"startDate": "2026-03-24T00:00:00Z",
                               "endDate": "2026-04-01T00:00:00Z"}),
        ("admin@example.com", {"policyId": str(uid("policy:sick"))}),
        ("provider@example.com", {}),
        ("manager@example.com", {"status": "pending"}),
        ("icu.manager@example.com", {}),
    ],
)
def test_count_requests_equals_walked_list_length(api, user, filters):
    walked = _requests(api, user=user, page_size=2, **filters)

    body = _get(api, f"{REQUESTS}/count", user=user, **filters)

    assert body == {"count": len(walked)}


def test_count_requests_counts_all_for_admin(api):
    assert _get(api, f"{REQUESTS}/count") == {"count": 5}


# Problems and cost ------------------------------------------------------------------------------


def test_get_request_answers_not_found_for_unknown_id(api):
    response = api.get(f"{REQUESTS}/{uuid.uuid4()}")

    assert "does not exist" in problem_of(response, 404, "time-off-request-not-found")["detail"]


def test_get_request_rejects_malformed_id(api):
    response = api.get(f"{REQUESTS}/nope")

    assert problem_of(response, 400, "validation")["path"] == "requestId"


def test_list_requests_issues_same_statement_count_whatever_the_page_size(api):
    counts = {}
    for size in (1, 5):
        with api.count_queries() as statements:
            response = api.get(REQUESTS, query_string={"pageSize": size})
        assert len(response.get_json()["items"]) == size
        counts[size] = len(statements)

    assert counts[1] == counts[5]
