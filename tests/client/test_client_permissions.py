"""ApiClient's permission methods against the real API in-process: the rules with their role,
the dry run's typed answer, and its refusals as exceptions. The update writes, so it runs on a
copy of its own (`fresh_api`)."""

from __future__ import annotations

import uuid

import pytest

from app.client import ApiClient, NotFound, ValidationProblem, build_http
from app.contract.permissions import PermissionDryRun, PermissionListQuery, PermissionUpdate


def client_of(api, email: str = "admin@example.com") -> ApiClient:
    return ApiClient(build_http(wsgi_app=api.app), api.token(email))


def manager_shift_rule(client: ApiClient):
    page = client.list_permissions(PermissionListQuery(subject="Shift", page_size=200))
    [rule] = [r for r in page.items if r.rbac_role_name == "Manager" and r.action == "view"]
    return rule


def test_dry_run_answers_a_typed_comparison(api, world):
    client = client_of(api)
    rule = manager_shift_rule(client)
    answer = client.dry_run_permission(
        rule.id, PermissionDryRun(user_id=world.manager, conditions={"id": None}))
    assert answer.holds_rule is True
    assert answer.proposed.count == 0
    assert answer.lost.count == answer.current.count
    assert answer.current.count
    assert len(answer.current.sample) == 5
    assert client.get_permission(rule.id).conditions == rule.conditions


def test_dry_run_refusals_arrive_as_exceptions(api, world):
    client = client_of(api)
    rule = manager_shift_rule(client)
    with pytest.raises(ValidationProblem) as caught:
        client.dry_run_permission(rule.id, PermissionDryRun(user_id=world.manager,
                                                            conditions={"nope": 1}))
    assert [e.path for e in caught.value.field_errors] == ["/conditions/nope"]
    with pytest.raises(NotFound) as missing:
        client.dry_run_permission(rule.id, PermissionDryRun(user_id=uuid.uuid4(),
                                                            conditions=None))
    assert missing.value.code == "user-not-found"


def test_update_permission_saves_the_conditions(fresh_api, world):
    client = client_of(fresh_api)
    rule = manager_shift_rule(client)
    conditions = {"team": {"$in": "$user.teamIds"}, "isCallout": False}
    saved = client.update_permission(rule.id, PermissionUpdate(conditions=conditions))
    assert saved.conditions == conditions
    assert saved.rbac_role_name == "Manager"
