"""The audit trail (extension): writes through /v1 record events in their own transaction, and
GET /v1/audit-events reads them newest first, filtered and paged, for administrators only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.api.audit import AUDITED, SUBJECTS
from app.contract.audit import AUDIT_SUBJECTS
from tests.problems import problem_of

EVENTS = "/v1/audit-events"
MANAGER = "manager@example.com"


def _wire(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")



def _start() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=5)


def _shift_body(world: Any, start: datetime, hours: int = 8) -> dict[str, Any]:
    end = start + timedelta(hours=hours)
    return {
        "startDate": _wire(start), "endDate": _wire(end), "team": str(world.ed),
        "segments": [{"role": str(world.ed_nurse_role), "type": "working",
                      "startDate": _wire(start), "endDate": _wire(end)}],
        "note": "Pod B",
    }


def _events(api: Any, **query: Any) -> list[dict[str, Any]]:
    response = api.get(EVENTS, query_string={"pageSize": 200, **query})
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]


def _create_shift(api: Any, world: Any, user: str = MANAGER) -> dict[str, Any]:
    response = api.post("/v1/shifts", user=user, json=_shift_body(world, _start()))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_every_audited_subject_is_one_the_contract_lists():
    assert tuple(sorted(AUDIT_SUBJECTS)) == SUBJECTS
    assert {spec.subject for spec in AUDITED.values()} == set(AUDIT_SUBJECTS)


def test_create_edit_delete_shift_record_events_with_before_and_after(fresh_api, world):
    shift = _create_shift(fresh_api, world)
    start = _start()

    created = _events(fresh_api, subject="Shift", recordId=shift["id"])
    assert [e["action"] for e in created] == ["create"]
    event = created[0]
    assert (event["actorId"], event["actorName"]) == (str(world.manager), event["actorName"])
    assert event["actorName"]
    assert event["changes"]["note"] == {"before": None, "after": "Pod B"}
    assert event["changes"]["team"] == {"before": None, "after": str(world.ed)}
    assert len(event["changes"]["segments"]["after"]) == 1

    new_end = start + timedelta(hours=9)
    response = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": shift["version"], "note": "Pod C", "endDate": _wire(new_end),
        "segments": [{"role": str(world.ed_nurse_role), "type": "working",
                      "startDate": _wire(start), "endDate": _wire(new_end)}]})
    assert response.status_code == 200, response.get_json()

    edited = _events(fresh_api, subject="Shift", recordId=shift["id"])
    assert [e["action"] for e in edited] == ["edit", "create"]
    changes = edited[0]["changes"]
    assert changes["note"] == {"before": "Pod B", "after": "Pod C"}
    assert changes["endDate"]["before"].startswith(_wire(start + timedelta(hours=8))[:19])
    assert changes["endDate"]["after"].startswith(_wire(new_end)[:19])
    segments = changes["segments"]
    assert [s["endDate"][:19] for s in segments["before"]] == [
        _wire(start + timedelta(hours=8))[:19]]
    assert [s["endDate"][:19] for s in segments["after"]] == [_wire(new_end)[:19]]
    assert "updatedAt" not in changes
    assert "version" not in changes

    assert fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER).status_code == 204
    deleted = _events(fresh_api, subject="Shift", recordId=shift["id"])
    assert [e["action"] for e in deleted] == ["delete", "edit", "create"]
    assert deleted[0]["changes"]["note"] == {"before": "Pod C", "after": None}


def test_events_say_whether_their_record_was_deleted_since(fresh_api, world):
    kept, gone = _create_shift(fresh_api, world), _create_shift(fresh_api, world)
    assert [e["recordDeleted"] for e in _events(fresh_api, recordId=gone["id"])] == [False]
    assert fresh_api.delete(f"/v1/shifts/{gone['id']}", user=MANAGER).status_code == 204
    assert [(e["action"], e["recordDeleted"])
            for e in _events(fresh_api, recordId=gone["id"])] == [("delete", True),
                                                                   ("create", True)]
    assert [e["recordDeleted"] for e in _events(fresh_api, recordId=kept["id"])] == [False]
    # A record of another subject with the same id is not taken for the deleted one.
    mixed = _events(fresh_api, subject="Shift")
    assert {e["recordId"] for e in mixed if e["recordDeleted"]} >= {gone["id"]}
    assert kept["id"] not in {e["recordId"] for e in mixed if e["recordDeleted"]}


def test_failed_write_leaves_no_event(fresh_api, world):
    shift = _create_shift(fresh_api, world)
    before = _events(fresh_api)

    stale = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                            json={"version": shift["version"] + 5, "note": "Lost"})
    problem_of(stale, 409, "version-conflict")
    bad = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                          json={"endDate": "2020-01-01T00:00:00+0000"})
    assert bad.status_code in (400, 409, 422), bad.get_json()
    refused = fresh_api.post("/v1/shifts", user="provider@example.com",
                             json=_shift_body(world, _start()))
    assert refused.status_code == 403

    assert _events(fresh_api) == before


def test_successful_write_always_has_one_event(fresh_api, world):
    label = fresh_api.post("/v1/settings/labels", json={"name": "Preceptor"}).get_json()
    fresh_api.put(f"/v1/settings/labels/{label['id']}", json={"name": "Mentor"})

    events = _events(fresh_api, subject="Label", recordId=label["id"])
    assert [e["action"] for e in events] == ["edit", "create"]
    assert events[0]["changes"] == {"name": {"before": "Preceptor", "after": "Mentor"}}
    assert events[0]["actorId"] == str(world.admin)


def test_request_id_is_kept(fresh_api):
    response = fresh_api.post("/v1/settings/labels", json={"name": "Float"},
                              headers={"X-Request-Id": "req-42"})
    assert response.status_code == 201
    events = _events(fresh_api, recordId=response.get_json()["id"])
    assert [e["requestId"] for e in events] == ["req-42"]


def test_filters_select_by_actor_subject_record_and_time(fresh_api, world):
    shift = _create_shift(fresh_api, world)
    label = fresh_api.post("/v1/settings/labels", json={"name": "Charge"}).get_json()

    by_manager = _events(fresh_api, actorId=str(world.manager))
    assert {e["recordId"] for e in by_manager} == {shift["id"]}
    by_admin = _events(fresh_api, actorId=str(world.admin), subject="Label")
    assert {e["recordId"] for e in by_admin} == {label["id"]}
    assert _events(fresh_api, recordId=label["id"])[0]["subject"] == "Label"

    now = datetime.now(UTC)
    assert len(_events(fresh_api, **{"from": _wire(now - timedelta(minutes=5))})) >= 2
    assert _events(fresh_api, to=_wire(now - timedelta(minutes=5))) == []


def test_events_page_newest_first_with_a_cursor(fresh_api):
    ids = [fresh_api.post("/v1/settings/labels", json={"name": f"L{i}"}).get_json()["id"]
           for i in range(5)]

    pages = fresh_api.walk(EVENTS, page_size=2, query_string={"subject": "Label"})

    seen = [e["recordId"] for page in pages for e in page]
    assert [len(page) for page in pages] == [2, 2, 1]
    assert seen == list(reversed(ids))


@pytest.mark.parametrize("user", [MANAGER, "provider@example.com", "scheduler@example.com"])
def test_list_audit_events_is_unauthorized_for_non_admins(api, user):
    body = problem_of(api.get(EVENTS, user=user), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("manage", "AuditEvent")
    # Bad input from someone who may not read the trail is answered with the refusal.
    problem_of(api.get(EVENTS, user=user, query_string={"subject": "Nope"}), 403, "unauthorized")


@pytest.mark.parametrize(("query", "path"), [
    ({"subject": "Nope"}, "subject"),
    ({"actorId": "not-a-uuid"}, "actorId"),
    ({"recordId": "x" * 81}, "recordId"),
    ({"from": "0001-01-01T00:00:00+0000"}, "from"),
    ({"to": "9999-12-31T23:59:59+0000"}, "to"),
    ({"from": "yesterday"}, "from"),
    ({"cursor": "tampered"}, "cursor"),
    ({"pageSize": "0"}, "pageSize"),
])
def test_list_audit_events_rejects_bad_filters(api, query, path):
    assert problem_of(api.get(EVENTS, query_string=query), 400, "validation")["path"] == path


def test_list_audit_events_rejects_a_negative_range(api):
    body = problem_of(api.get(EVENTS, query_string={"from": "2026-03-02T00:00:00Z",
                                                  "to": "2026-03-01T00:00:00Z"}),
                    400, "negative-range")
    assert body["path"] == "to"


def test_unauthenticated_caller_is_refused(api):
    problem_of(api.get(EVENTS, user=None), 401, "unauthenticated")


def test_reading_writes_nothing(api):
    before = _events(api, subject="Team")
    api.get("/v1/teams")
    assert _events(api, subject="Team") == before


def test_a_punch_records_its_own_event_as_the_provider(fresh_api, world):
    response = fresh_api.post("/v1/timekeeping/timecard/punches", user="provider@example.com",
                              json={"provider": str(world.provider), "action": "clock_in"})
    assert response.status_code == 201, response.get_json()
    punch = response.get_json()

    events = _events(fresh_api, subject="Punch", recordId=punch["id"])

    assert [(e["action"], e["actorId"]) for e in events] == [("create", str(world.provider))]
    assert events[0]["changes"]["action"] == {"before": None, "after": "clock_in"}
    assert events[0]["changes"]["state"] == {"before": None, "after": "pending"}

