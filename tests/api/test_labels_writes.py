"""Writing labels: POST /v1/settings/labels, PUT and DELETE /v1/settings/labels/{labelId}."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest

from tests.factories import uid
from tests.problems import problem_of

LABELS = "/v1/settings/labels"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
SCHEDULER = "scheduler@example.com"
MANAGER = "manager@example.com"



def _create(api: Any, **body: Any) -> dict[str, Any]:
    response = api.post(LABELS, json={"name": "Preceptor", **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_create_label_returns_201_location_and_the_label(fresh_api):
    response = fresh_api.post(LABELS, json={"name": "Preceptor", "description": "Trains others",
                                            "color": "#17BECF"})

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith(f"{LABELS}/{body['id']}")
    assert TIMESTAMP.match(body["createdAt"])
    assert body["updatedAt"] == body["createdAt"]
    assert {k: body[k] for k in ("name", "description", "color")} == {
        "name": "Preceptor", "description": "Trains others", "color": "#17BECF"}
    assert fresh_api.get(response.headers["Location"]).get_json() == body


def test_create_label_defaults_color_and_description(fresh_api):
    body = _create(fresh_api)
    assert (body["color"], body["description"]) == ("#6B7280", None)


@pytest.mark.parametrize(("body", "path"), [
    ({"name": ""}, "/name"), ({"name": "   "}, "/name"), ({}, "/name"),
    ({"name": "A", "color": "red"}, "/color"), ({"name": "A", "color": None}, "/color"),
    ({"name": "A", "shade": "dark"}, "/shade"),
])
def test_create_label_rejects_malformed_members(fresh_api, body, path):
    assert problem_of(fresh_api.post(LABELS, json=body), 400, "validation")["path"] == path


@pytest.mark.parametrize("user", [SCHEDULER, MANAGER, "provider@example.com"])
def test_create_label_is_unauthorized_for_non_admins(fresh_api, user):
    body = problem_of(fresh_api.post(LABELS, user=user, json={"name": "A"}), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("create", "Label")


def test_update_label_changes_only_the_members_sent(fresh_api):
    created = _create(fresh_api, description="Trains others", color="#17BECF")
    time.sleep(1.1)  # updatedAt has whole seconds on the wire

    response = fresh_api.put(f"{LABELS}/{created['id']}", json={"name": "Mentor"})

    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["updatedAt"] > created["updatedAt"]
    assert body == {**created, "name": "Mentor", "updatedAt": body["updatedAt"]}


def test_update_label_clears_description_sent_as_null(fresh_api):
    created = _create(fresh_api, description="Trains others")
    body = fresh_api.put(f"{LABELS}/{created['id']}",
                         json={"description": None, "color": "#000000"}).get_json()
    assert (body["description"], body["color"], body["name"]) == (None, "#000000", "Preceptor")


@pytest.mark.parametrize(("body", "path"), [
    ({"name": ""}, "/name"), ({"name": None}, "/name"), ({"color": "#12345"}, "/color"),
    ({"color": None}, "/color"),
])
def test_update_label_rejects_bad_members(fresh_api, body, path):
    response = fresh_api.put(f"{LABELS}/{uid('label:float')}", json=body)
    assert problem_of(response, 400, "validation")["path"] == path


def test_update_label_answers_not_found(fresh_api):
    problem_of(fresh_api.put(f"{LABELS}/{uuid.uuid4()}", json={"name": "A"}), 404,
             "label-not-found")


def test_update_label_is_unauthorized_for_a_scheduler(fresh_api):
    response = fresh_api.put(f"{LABELS}/{uid('label:float')}", user=SCHEDULER,
                             json={"name": "A"})
    assert problem_of(response, 403, "unauthorized")["action"] == "edit"


def test_delete_label_answers_204_and_removes_it_from_segments(fresh_api, world):
    charge = str(uid("label:charge"))
    shifts = [s for page in fresh_api.walk("/v1/shifts", page_size=200) for s in page
              if any(charge in seg["labels"] for seg in s["segments"])]
    assert shifts, "build_world puts the charge label on a segment"

    response = fresh_api.delete(f"{LABELS}/{charge}")

    assert response.status_code == 204
    assert response.data == b""
    problem_of(fresh_api.get(f"{LABELS}/{charge}"), 404, "label-not-found")
    shift = fresh_api.get(f"/v1/shifts/{shifts[0]['id']}").get_json()
    assert all(charge not in seg["labels"] for seg in shift["segments"])


def test_delete_label_answers_not_found(fresh_api):
    problem_of(fresh_api.delete(f"{LABELS}/{uuid.uuid4()}"), 404, "label-not-found")


def test_delete_label_is_unauthorized_for_a_manager(fresh_api):
    problem_of(fresh_api.delete(f"{LABELS}/{uid('label:float')}", user=MANAGER), 403,
             "unauthorized")
    assert fresh_api.get(f"{LABELS}/{uid('label:float')}").status_code == 200


def test_label_usage_counts_the_shifts_carrying_it_by_team(fresh_api):
    charge = str(uid("label:charge"))
    shifts = [s for page in fresh_api.walk("/v1/shifts", page_size=200) for s in page
              if any(charge in seg["labels"] for seg in s["segments"])]

    response = fresh_api.get(f"{LABELS}/{charge}/usage")

    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["labelId"] == charge
    assert body["shiftCount"] == len(shifts) > 0
    assert sum(t["shiftCount"] for t in body["teams"]) == len(shifts)
    teams = {t["id"]: t["name"] for page in fresh_api.walk("/v1/teams", page_size=200)
             for t in page}
    assert all(teams[t["teamId"]] == t["teamName"] for t in body["teams"])
    counts = [t["shiftCount"] for t in body["teams"]]
    assert counts == sorted(counts, reverse=True)
    assert 0 <= body["upcomingShiftCount"] <= body["shiftCount"]


def test_label_usage_of_a_new_label_is_empty(fresh_api):
    created = _create(fresh_api)
    body = fresh_api.get(f"{LABELS}/{created['id']}/usage").get_json()
    assert body == {"labelId": created["id"], "shiftCount": 0, "upcomingShiftCount": 0,
                    "teams": []}


def test_label_usage_answers_not_found_and_is_unauthorized_for_a_manager(fresh_api):
    problem_of(fresh_api.get(f"{LABELS}/{uuid.uuid4()}/usage"), 404, "label-not-found")
    body = problem_of(fresh_api.get(f"{LABELS}/{uid('label:charge')}/usage", user=MANAGER), 403,
                    "unauthorized")
    assert body["resource"] == "Label"


def test_label_usage_is_an_extension_in_openapi(api):
    document = api.get("/v1/openapi.json").get_json()
    operation = document["paths"]["/v1/settings/labels/{labelId}/usage"]["get"]
    assert operation["x-shiftdesk-extension"] is True
