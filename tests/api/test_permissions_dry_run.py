"""The dry run of a permission rule's conditions (extension): today's and the proposed counts for
one user, what they gain and lose, nothing saved; checks and refusals like the PATCH's."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select

from app.api import models as m

PERMISSIONS = "/v1/authorization/permissions"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def manager_rule(api: Any, action: str, subject: str) -> dict[str, Any]:
    """The Manager role's rule `action subject` limited to the manager's teams."""
    pages = api.walk(PERMISSIONS, page_size=200, query_string={"subject": subject})
    [rule] = [r for page in pages for r in page
              if r["action"] == action and r["rbacRoleName"] == "Manager"]
    return rule


def count(api: Any, statement: Any) -> int:
    with api.db.unit_of_work() as session:
        return int(session.scalar(statement))


def dry_run(api: Any, rule: dict[str, Any], conditions: Any, *, user: uuid.UUID,
            caller: str = "admin@example.com") -> Any:
    return api.post(f"{PERMISSIONS}/{rule['id']}/dry-run", user=caller,
                    json={"userId": str(user), "conditions": conditions})


def test_list_permissions_names_each_rules_role(api):
    page = api.get(PERMISSIONS, query_string={"pageSize": 200}).get_json()
    names = {r["rbacRoleName"] for r in page["items"]}
    assert {"Provider", "Manager", "Scheduler", "Admin"} <= names
    assert all(uuid.UUID(r["rbacRoleId"]) for r in page["items"])


def test_dry_run_counts_shifts_for_the_manager_today_and_proposed(api):
    rule = manager_rule(api, "view", "Shift")
    world = api.world
    team_shifts = count(api, select(func.count()).select_from(m.Shift)
                        .where(m.Shift.team_id == world.ed))
    open_shifts = count(api, select(func.count()).select_from(m.Shift)
                        .where(m.Shift.team_id == world.ed, m.Shift.provider_id.is_(None)))
    assert 0 < open_shifts < team_shifts
    proposed = {"team": {"$in": "$user.teamIds"}, "provider": None}
    response = dry_run(api, rule, proposed, user=world.manager)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["permissionId"], body["userId"]) == (rule["id"], str(world.manager))
    assert (body["action"], body["subject"], body["holdsRule"]) == ("view", "Shift", True)
    assert body["reason"] is None
    assert body["current"]["count"] == team_shifts
    assert body["proposed"]["count"] == open_shifts
    assert body["gained"] == {"count": 0, "sample": []}
    assert body["lost"]["count"] == team_shifts - open_shifts
    assert len(body["current"]["sample"]) == 5
    assert all(r["label"] == "Open shift" for r in body["proposed"]["sample"])
    assert all(r["label"] != "Open shift" for r in body["lost"]["sample"])
    starts = [r["startsAt"] for r in body["current"]["sample"]]
    assert starts == sorted(starts)
    again = dry_run(api, rule, proposed, user=world.manager).get_json()
    assert again == body  # a stable order: the same first rows every time


def test_dry_run_counts_gained_time_off_requests(api):
    rule = manager_rule(api, "view", "TimeOffRequest")
    world = api.world
    everyone = count(api, select(func.count()).select_from(m.TimeOffRequest))
    response = dry_run(api, rule, None, user=world.manager)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["proposed"]["count"] == everyone
    assert body["gained"]["count"] == everyone - body["current"]["count"]
    assert body["gained"]["count"] > 0
    assert body["lost"]["count"] == 0


def test_dry_run_saves_nothing(api):
    rule = manager_rule(api, "view", "Shift")
    before = api.get(f"{PERMISSIONS}/{rule['id']}").get_json()
    seen = len(api.walk("/v1/shifts", page_size=200, user="manager@example.com")[0])
    response = dry_run(api, rule, {"id": None}, user=api.world.manager)
    assert response.status_code == 200
    assert response.get_json()["proposed"]["count"] == 0
    assert api.get(f"{PERMISSIONS}/{rule['id']}").get_json() == before
    assert len(api.walk("/v1/shifts", page_size=200, user="manager@example.com")[0]) == seen


def test_dry_run_answers_that_a_user_without_the_role_keeps_their_access(api):
    rule = manager_rule(api, "view", "Shift")
    response = dry_run(api, rule, {"id": None}, user=api.world.provider)
    body = response.get_json()
    assert body["holdsRule"] is False
    assert "does not hold the Manager role" in body["reason"]
    assert body["current"]["count"] == body["proposed"]["count"] > 0
    assert body["lost"]["count"] == body["gained"]["count"] == 0


def test_dry_run_answers_that_an_administrator_may_do_everything(api):
    rule = manager_rule(api, "view", "Shift")
    body = dry_run(api, rule, {"id": None}, user=api.world.admin).get_json()
    assert "administrator" in body["reason"]
    assert body["lost"]["count"] == 0


def test_dry_run_lists_every_condition_error_like_the_patch(api):
    rule = manager_rule(api, "view", "Shift")
    conditions = {"nope": 1, "provider": {"$near": 3}, "$or": [{"team": {"$in": 5}}]}
    response = dry_run(api, rule, conditions, user=api.world.manager)
    patched = api.patch(f"{PERMISSIONS}/{rule['id']}", json={"conditions": conditions})
    assert response.status_code == patched.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["errors"] == patched.get_json()["errors"]
    assert response.get_json()["path"] == "/conditions/nope"


@pytest.mark.parametrize("body", [{"conditions": None}, {"userId": "x", "conditions": None},
                                  {"userId": str(uuid.UUID(int=1)), "conditions": [1]}])
def test_dry_run_refuses_a_malformed_body(api, body):
    rule = manager_rule(api, "view", "Shift")
    response = api.post(f"{PERMISSIONS}/{rule['id']}/dry-run", json=body)
    assert response.status_code == 400
    assert problem_code(response) == "validation"


def test_dry_run_answers_404_for_an_unknown_user(api):
    rule = manager_rule(api, "view", "Shift")
    response = dry_run(api, rule, None, user=uuid.uuid4())
    assert response.status_code == 404
    assert problem_code(response) == "user-not-found"


def test_dry_run_answers_404_for_an_unknown_rule(api):
    response = api.post(f"{PERMISSIONS}/{uuid.uuid4()}/dry-run",
                        json={"userId": str(api.world.manager), "conditions": None})
    assert response.status_code == 404
    assert problem_code(response) == "permission-not-found"


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com"])
def test_dry_run_refuses_non_admins(api, user):
    rule = manager_rule(api, "view", "Shift")
    response = dry_run(api, rule, None, user=api.world.manager, caller=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_dry_run_of_a_subject_without_records_says_so(api):
    pages = api.walk(PERMISSIONS, page_size=200, query_string={"subject": "BalanceReset"})
    [rule] = [r for page in pages for r in page]
    body = dry_run(api, rule, None, user=api.world.manager).get_json()
    assert body["current"] == {"count": None, "sample": []}
    assert "no stored records" in body["reason"]


def test_dry_run_says_a_dismissed_user_can_do_nothing(api):
    rule = manager_rule(api, "view", "Shift")
    body = dry_run(api, rule, None, user=api.world.dismissed).get_json()
    assert "dismissed" in body["reason"]
    assert body["current"]["count"] == body["proposed"]["count"] == 0


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "not a date"])
def test_dry_run_answers_for_dates_far_out_or_malformed_without_failing(api, when):
    rule = manager_rule(api, "view", "Shift")
    response = dry_run(api, rule, {"team": {"$in": "$user.teamIds"},
                                   "startDate": {"$gte": when}}, user=api.world.manager)
    assert response.status_code in (200, 400), response.get_json()
    if response.status_code == 400:
        assert response.get_json()["path"].startswith("/conditions/startDate")
