"""Reading permission rules through /v1/authorization/permissions (extension): who may read,
fields, order, the subject filter, pages and not-found."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from app.api.seed import STANDARD_ROLES

PERMISSIONS = "/v1/authorization/permissions"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
FIELDS = {"id", "action", "subject", "inverted", "errorMessage", "createdAt", "conditions",
          "rbacRoleId", "rbacRoleName"}  # the last two: extensions naming the rule's role
ACTIONS = {"create", "view", "edit", "approve", "sign_off", "manage"}
RULES = {name: [(a, s, c) for a, s, c in rules] for name, (_, rules) in STANDARD_ROLES.items()}
TOTAL = sum(len(rules) for rules in RULES.values())


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def assert_validation(response: Any, path: str) -> None:
    """Assert a 400 `validation` problem about `path`."""
    assert response.status_code == 400, response.get_json()
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == path


def every_rule(api: Any, **query: Any) -> list[dict[str, Any]]:
    """The whole permission list, one page of 200."""
    response = api.get(PERMISSIONS, query_string={"pageSize": 200, **query})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["cursor"] is None
    return body["items"]


def test_list_permissions_returns_spec_fields(api):
    rules = every_rule(api)
    assert len(rules) == TOTAL
    for rule in rules:
        assert set(rule) == FIELDS
        assert TIMESTAMP.match(rule["createdAt"])
        assert rule["action"] in ACTIONS
        assert rule["inverted"] is False
        assert rule["errorMessage"] is None
    own_timecard = [r for r in rules if (r["action"], r["subject"]) == ("create", "Timecard")]
    assert [r["conditions"] for r in own_timecard] == [{"providerId": "$user.providerId"}]
    assert any(r["conditions"] is None for r in rules)


def test_list_permissions_orders_role_by_role_in_evaluation_order(api):
    rules = [(r["action"], r["subject"], r["conditions"]) for r in every_rule(api)]
    seen: list[str] = []
    while rules:
        role = next((name for name, expected in RULES.items()
                     if name not in seen and rules[:len(expected)] == expected), None)
        assert role is not None, f"no role's rules start the rest of the list: {rules[:3]}"
        seen.append(role)
        rules = rules[len(RULES[role]):]
    assert sorted(seen) == sorted(RULES)


def test_list_permissions_filters_by_subject(api):
    shift_rules = every_rule(api, subject="Shift")
    expected = [rule for rules in RULES.values() for rule in rules if rule[1] == "Shift"]
    assert len(shift_rules) == len(expected)
    assert {r["subject"] for r in shift_rules} == {"Shift"}
    labels = every_rule(api, subject="Label")
    assert [(r["action"], r["subject"]) for r in labels] == [("manage", "Label")]
    balance = every_rule(api, subject="BalanceReset")
    assert [(r["action"], r["subject"]) for r in balance] == [("manage", "BalanceReset")]


def test_list_permissions_rejects_unknown_subject(api):
    assert_validation(api.get(PERMISSIONS, query_string={"subject": "Everything"}), "subject")


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com",
                                  "scheduler@example.com", "bot@example.com"])
def test_list_permissions_refuses_users_without_permission_rights(api, user):
    response = api.get(PERMISSIONS, user=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
    body = response.get_json()
    assert (body["action"], body["resource"]) == ("view", "Permission")


def test_list_permissions_requires_sign_in(api):
    response = api.get(PERMISSIONS, user=None)
    assert response.status_code == 401
    assert problem_code(response) == "unauthenticated"


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_walk_returns_every_rule_once_in_order(api, size):
    everything = [r["id"] for r in every_rule(api)]
    pages = api.walk(PERMISSIONS, page_size=size)
    walked = [r["id"] for page in pages for r in page]
    assert walked == everything
    assert len(set(walked)) == len(walked)
    assert all(len(page) == size for page in pages[:-1])


@pytest.mark.parametrize("size", ["0", "201"])
def test_list_permissions_rejects_page_size_out_of_range(api, size):
    assert_validation(api.get(PERMISSIONS, query_string={"pageSize": size}), "pageSize")


def test_list_permissions_rejects_cursor_reused_with_other_subject(api):
    first = api.get(PERMISSIONS, query_string={"pageSize": 1, "subject": "Shift"})
    cursor = first.get_json()["cursor"]
    assert cursor
    assert api.get(PERMISSIONS, query_string={"cursor": cursor,
                                              "subject": "Shift"}).status_code == 200
    assert_validation(api.get(PERMISSIONS, query_string={"cursor": cursor,
                                                         "subject": "Team"}), "cursor")
    assert_validation(api.get("/v1/roles", query_string={"cursor": cursor}), "cursor")


def test_get_permission_returns_rule(api):
    listed = every_rule(api, subject="Timesheet")[0]
    response = api.get(f"{PERMISSIONS}/{listed['id']}")
    assert response.status_code == 200
    assert response.get_json() == listed


def test_get_permission_answers_not_found_when_id_is_unknown(api):
    missing = uuid.uuid4()
    response = api.get(f"{PERMISSIONS}/{missing}")
    assert response.status_code == 404
    assert problem_code(response) == "permission-not-found"
    assert str(missing) in response.get_json()["detail"]


def test_get_permission_rejects_malformed_id(api):
    assert_validation(api.get(f"{PERMISSIONS}/rule-1"), "permissionId")


def test_get_permission_refuses_a_manager_whether_or_not_it_exists(api):
    existing = every_rule(api)[0]["id"]
    for ident in (existing, str(uuid.uuid4())):
        response = api.get(f"{PERMISSIONS}/{ident}", user="manager@example.com")
        assert response.status_code == 403
        assert problem_code(response) == "unauthorized"


def test_permission_reads_are_marked_as_extensions(api):
    document = api.get("/v1/openapi.json").get_json()
    paths = document["paths"]
    assert paths[PERMISSIONS]["get"]["x-shiftdesk-extension"] is True
    single = paths[PERMISSIONS + "/{permissionId}"]["get"]
    assert single["x-shiftdesk-extension"] is True
    assert "`permission-not-found`" in single["responses"]["404"]["description"]
