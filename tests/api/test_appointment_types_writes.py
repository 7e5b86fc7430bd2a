"""Writing appointment types: POST /v1/appointment-types, PATCH and DELETE (archive) by id."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.factories import uid
from tests.problems import problem_of

TYPES = "/v1/appointment-types"
SCHEDULER = "scheduler@example.com"
MANAGER = "manager@example.com"
PROVIDER = "provider@example.com"
REQUIREMENT = {"type": "and", "entries": [
    {"type": "equal", "skill": "language", "value": "French"},
    {"type": "or", "entries": [{"type": "equal", "skill": "certification", "value": "ACLS"}]},
]}



def _create(api: Any, user: str = SCHEDULER, **body: Any) -> dict[str, Any]:
    response = api.post(TYPES, user=user, json={"name": "Telehealth", "length": 20, **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _listed(api: Any) -> list[str]:
    return [t["id"] for page in api.walk(TYPES, page_size=50) for t in page]


def test_create_appointment_type_returns_201_location_and_the_type(fresh_api, world):
    response = fresh_api.post(TYPES, user=SCHEDULER, json={
        "name": "Telehealth", "length": 20, "allowedRoles": [str(world.ed_doctor_role)],
        "skillRequirement": REQUIREMENT})

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith(f"{TYPES}/{body['id']}")
    assert body == {"id": body["id"], "name": "Telehealth", "length": 20,
                    "allowedRoles": [str(world.ed_doctor_role)],
                    "skillRequirement": REQUIREMENT, "archived": False}
    assert fresh_api.get(response.headers["Location"]).get_json() == body
    assert body["id"] in _listed(fresh_api)


def test_create_appointment_type_defaults_to_any_role_and_no_requirement(fresh_api):
    body = _create(fresh_api)
    assert (body["allowedRoles"], body["skillRequirement"]) == (None, None)


@pytest.mark.parametrize(("body", "path"), [
    ({"name": "X", "length": 20}, "/name"),
    ({"name": "  ", "length": 20}, "/name"),
    ({"name": "Telehealth", "length": 4}, "/length"),
    ({"name": "Telehealth", "length": 12.5}, "/length"),
    ({"name": "Telehealth"}, "/length"),
    ({"length": 20}, "/name"),
    ({"name": "Telehealth", "length": 20, "allowedRoles": ["nope"]}, "/allowedRoles/0"),
    ({"name": "Telehealth", "length": 20,
      "skillRequirement": {"type": "and", "entries": []}}, "/skillRequirement/entries"),
    ({"name": "Telehealth", "length": 20,
      "skillRequirement": {"type": "equal", "skill": "", "value": "x"}}, "/skillRequirement/skill"),
    ({"name": "Telehealth", "length": 20, "skillRequirement": {"type": "or", "entries": [
        {"type": "and", "entries": [{"type": "or", "entries": [
            {"type": "equal", "skill": "a", "value": "b"}]}]}]}},
     "/skillRequirement/entries/0/entries/0/type"),
])
def test_create_appointment_type_rejects_malformed_members(fresh_api, body, path):
    response = fresh_api.post(TYPES, user=SCHEDULER, json=body)
    assert problem_of(response, 400, "validation")["path"] == path


def test_create_appointment_type_rejects_unknown_and_repeated_roles(fresh_api, world):
    role = str(world.ed_doctor_role)
    response = fresh_api.post(TYPES, user=SCHEDULER, json={
        "name": "Telehealth", "length": 20, "allowedRoles": [role, str(uuid.uuid4()), role]})
    body = problem_of(response, 400, "validation")
    assert body["path"] == "/allowedRoles/1"
    assert [e["path"] for e in body["errors"]] == ["/allowedRoles/1", "/allowedRoles/2"]


@pytest.mark.parametrize("user", [PROVIDER, MANAGER])
def test_create_appointment_type_is_unauthorized_without_the_subject(fresh_api, user):
    response = fresh_api.post(TYPES, user=user, json={"name": "Telehealth", "length": 20})
    body = problem_of(response, 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("create", "AppointmentType")


def test_update_appointment_type_changes_only_the_members_sent(fresh_api, world):
    created = _create(fresh_api, allowedRoles=[str(world.ed_doctor_role)],
                      skillRequirement=REQUIREMENT)

    response = fresh_api.patch(f"{TYPES}/{created['id']}", user=SCHEDULER, json={"length": 45})

    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {**created, "length": 45}
    assert fresh_api.get(f"{TYPES}/{created['id']}").get_json() == {**created, "length": 45}


def test_update_appointment_type_clears_roles_and_requirement_sent_as_null(fresh_api, world):
    created = _create(fresh_api, allowedRoles=[str(world.ed_doctor_role)],
                      skillRequirement=REQUIREMENT)
    response = fresh_api.patch(f"{TYPES}/{created['id']}", user=SCHEDULER,
                               json={"allowedRoles": None, "skillRequirement": None,
                                     "name": "Video call"})
    assert response.get_json() == {**created, "allowedRoles": None, "skillRequirement": None,
                                   "name": "Video call"}


@pytest.mark.parametrize(("body", "path"), [
    ({"name": "X"}, "/name"), ({"length": 0}, "/length"), ({"name": None}, "/name"),
    ({"length": None}, "/length"), ({"allowedRoles": [str(uid("role:none"))]}, "/allowedRoles/0"),
    ({"archived": True}, "/archived"),
])
def test_update_appointment_type_rejects_bad_members(fresh_api, body, path):
    response = fresh_api.patch(f"{TYPES}/{uid('atype:follow')}", user=SCHEDULER, json=body)
    assert problem_of(response, 400, "validation")["path"] == path


def test_update_appointment_type_answers_not_found(fresh_api):
    response = fresh_api.patch(f"{TYPES}/{uuid.uuid4()}", user=SCHEDULER, json={"length": 30})
    problem_of(response, 404, "appointment-type-not-found")


def test_update_appointment_type_is_unauthorized_for_a_manager(fresh_api):
    response = fresh_api.patch(f"{TYPES}/{uid('atype:follow')}", user=MANAGER,
                               json={"length": 30})
    assert problem_of(response, 403, "unauthorized")["action"] == "edit"


def test_delete_appointment_type_archives_it(fresh_api):
    created = _create(fresh_api)

    response = fresh_api.delete(f"{TYPES}/{created['id']}", user=SCHEDULER)

    assert response.status_code == 204
    assert response.data == b""
    assert created["id"] not in _listed(fresh_api)
    assert fresh_api.get(f"{TYPES}/{created['id']}").get_json() == {**created, "archived": True}


def test_delete_appointment_type_twice_is_fine(fresh_api):
    path = f"{TYPES}/{uid('atype:old')}"
    assert fresh_api.delete(path, user=SCHEDULER).status_code == 204
    assert fresh_api.delete(path, user=SCHEDULER).status_code == 204
    assert fresh_api.get(path).get_json()["archived"] is True


def test_delete_appointment_type_stops_linking_new_appointments(fresh_api, world):
    assert fresh_api.delete(f"{TYPES}/{uid('atype:follow')}", user=SCHEDULER).status_code == 204
    response = fresh_api.post("/v1/appointments", user=SCHEDULER, json={
        "type": "Follow-up", "providerId": str(world.doctor),
        "startDate": "2031-06-02T14:00:00Z", "endDate": "2031-06-02T14:15:00Z"})
    assert response.status_code == 201
    assert response.get_json()["type"] == "Follow-up"


def test_delete_appointment_type_answers_not_found(fresh_api):
    problem_of(fresh_api.delete(f"{TYPES}/{uuid.uuid4()}", user=SCHEDULER), 404,
             "appointment-type-not-found")


def test_delete_appointment_type_is_unauthorized_for_a_provider(fresh_api):
    response = fresh_api.delete(f"{TYPES}/{uid('atype:follow')}", user=PROVIDER)
    problem_of(response, 403, "unauthorized")
    assert fresh_api.get(f"{TYPES}/{uid('atype:follow')}").get_json()["archived"] is False
