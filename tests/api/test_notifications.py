"""Notifications (extension): each cause writes its notices in its own transaction, and the
caller's inbox: GET /v1/notifications (newest first, unread filter, cursor), /count, GET one,
PATCH (read, version), POST mark-all-read, `unreadNotifications` on /v1/users/me (SQLite and
PostgreSQL)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.problems import problem_of

NOTIFICATIONS = "/v1/notifications"
PROVIDER = "provider@example.com"
MANAGER = "manager@example.com"
NURSE1 = "ed.nurse1@example.com"
DOCTOR = "doctor@example.com"
ICU_NURSE = "icu.nurse@example.com"
PTO = str(uid("policy:pto"))
ED_NURSES = [uid(f"user:ed.nurse{i}@example.com") for i in range(1, 4)]


def _wire(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _future(days: float = 6) -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=days)



def _mine(api: Any, user: str = PROVIDER, **query: Any) -> list[dict[str, Any]]:
    response = api.get(NOTIFICATIONS, user=user, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]


def _unread(api: Any, user: str = PROVIDER) -> int:
    counted = api.get(f"{NOTIFICATIONS}/count", user=user, query_string={"unread": "true"})
    assert counted.status_code == 200, counted.get_json()
    me = api.get("/v1/users/me", user=user).get_json()
    assert me["unreadNotifications"] == counted.get_json()["count"]
    return counted.get_json()["count"]


def _shift_body(world: Any, start: datetime, provider: uuid.UUID | None = None,
                hours: int = 8) -> dict[str, Any]:
    end = start + timedelta(hours=hours)
    body: dict[str, Any] = {
        "startDate": _wire(start), "endDate": _wire(end), "team": str(world.ed),
        "segments": [{"role": str(world.ed_nurse_role), "type": "working",
                      "startDate": _wire(start), "endDate": _wire(end)}]}
    if provider is not None:
        body["provider"] = str(provider)
    return body


def _create_shift(api: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/v1/shifts", user=MANAGER, json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# Causes -----------------------------------------------------------------------------------------


def test_time_off_rejection_tells_the_provider_why(fresh_api):
    request = fresh_api.post("/v1/time-off/requests", user=PROVIDER, json={
        "policyId": PTO, "startDate": "2026-03-02T05:00:00+0000",
        "endDate": "2026-03-03T05:00:00+0000"}).get_json()
    assert _mine(fresh_api) == []
    response = fresh_api.post(f"/v1/time-off/requests/{request['id']}/reject", user=MANAGER,
                              json={"rejectionReason": "Two nurses already off that day"})
    assert response.status_code == 200, response.get_json()
    [notice] = _mine(fresh_api)
    assert (notice["kind"], notice["subject"], notice["recordId"]) == (
        "time-off-rejected", "TimeOffRequest", request["id"])
    assert notice["title"] == "Time off declined"
    assert notice["body"] == ("Your time off Mon 2 Mar was declined by Morgan Manager: "
                              "“Two nurses already off that day”")
    assert notice["recordTime"] == "2026-03-02T05:00:00+0000"
    assert (notice["readAt"], notice["version"]) == (None, 1)
    assert _unread(fresh_api) == 1
    assert _mine(fresh_api, MANAGER) == []


def test_time_off_approval_tells_the_provider_and_posts_open_copies(fresh_api, world):
    start = _future(8).replace(hour=5)
    request = fresh_api.post("/v1/time-off/requests", user=PROVIDER, json={
        "policyId": PTO, "startDate": _wire(start),
        "endDate": _wire(start + timedelta(days=1))}).get_json()
    shift = _create_shift(fresh_api, _shift_body(world, start + timedelta(hours=8),
                                                 world.provider))
    response = fresh_api.post(f"/v1/time-off/requests/{request['id']}/approve", user=MANAGER,
                              json={"conflictResolution": "deleteWithOpen"})
    assert response.status_code == 200, response.get_json()
    kinds = [(n["kind"], n["recordId"]) for n in _mine(fresh_api)]
    assert ("time-off-approved", request["id"]) in kinds
    assert ("shift-assigned", shift["id"]) in kinds
    # The open copy fits the other ED nurses, never the physician nor the ICU.
    assert [n["kind"] for n in _mine(fresh_api, NURSE1)] == ["open-shift-posted"]
    assert "open-shift-posted" not in [n["kind"] for n in _mine(fresh_api, DOCTOR)]
    assert _mine(fresh_api, ICU_NURSE) == []


def test_rejected_punch_tells_the_provider_the_admin_note(fresh_api, world):
    punch = fresh_api.post("/v1/timekeeping/timecard/punches", user=PROVIDER, json={
        "provider": str(world.provider), "action": "clock_in"}).get_json()
    response = fresh_api.patch(f"/v1/timekeeping/timecard/punches/{punch['id']}", user=MANAGER,
                               json={"state": "rejected", "adminNote": "You were off today"})
    assert response.status_code == 200, response.get_json()
    [notice] = _mine(fresh_api)
    assert (notice["kind"], notice["subject"], notice["recordId"]) == (
        "punch-rejected", "Punch", punch["id"])
    assert notice["body"].startswith("Your clock in punch of ")
    assert notice["body"].endswith("was rejected by Morgan Manager: “You were off today”")
    # Approving later, or rejecting again, tells nothing new.
    fresh_api.patch(f"/v1/timekeeping/timecard/punches/{punch['id']}", user=MANAGER,
                    json={"state": "rejected"})
    assert len(_mine(fresh_api)) == 1


def test_shift_assigned_changed_reassigned_and_deleted_reach_the_providers_concerned(
        fresh_api, world):
    start = _future()
    shift = _create_shift(fresh_api, _shift_body(world, start, world.provider))
    assert [n["kind"] for n in _mine(fresh_api)] == ["shift-assigned"]
    later = start + timedelta(hours=2)
    changed = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": shift["version"], **{k: v for k, v in _shift_body(world, later).items()
                                        if k != "team"}})
    assert changed.status_code == 200, changed.get_json()
    notice = _mine(fresh_api)[0]
    assert notice["kind"] == "shift-changed"
    assert "(was " in notice["body"]
    # A PATCH that changes nothing the provider works by tells nothing.
    same = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={})
    assert same.status_code == 200
    assert len(_mine(fresh_api)) == 2
    moved = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                            json={"provider": str(ED_NURSES[0])})
    assert moved.status_code == 200, moved.get_json()
    assert _mine(fresh_api)[0]["kind"] == "shift-unassigned"
    assert [n["kind"] for n in _mine(fresh_api, NURSE1)] == ["shift-assigned"]
    deleted = fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER)
    assert deleted.status_code == 204
    notice = _mine(fresh_api, NURSE1)[0]
    assert (notice["kind"], notice["recordId"]) == ("shift-deleted", shift["id"])
    assert _mine(fresh_api, MANAGER) == []  # nobody hears of their own doing


def test_open_shift_is_posted_to_those_whose_role_and_availability_fit(fresh_api, world):
    start = _future(9)
    local_day = start.astimezone(fresh_api.settings.zone).date().isoformat()
    off = fresh_api.post("/v1/availability-exceptions", user=NURSE1, json={
        "startDate": local_day, "endDate": local_day, "note": "Exam"})
    assert off.status_code == 201, off.get_json()
    shift = _create_shift(fresh_api, _shift_body(world, start))
    notice = _mine(fresh_api)[0]
    assert (notice["kind"], notice["recordId"]) == ("open-shift-posted", shift["id"])
    assert "(Registered Nurse); it fits your roles and availability." in notice["body"]
    with fresh_api.db.unit_of_work() as session:
        told = set(session.scalars(select(m.Notification.user_id).where(
            m.Notification.record_id == uuid.UUID(shift["id"]))))
    # ED nurses, except the one unavailable that day; not the physician, ICU or the dismissed.
    assert told == {world.provider, *ED_NURSES[1:]}
    # Editing the still open shift posts it no second time.
    edited = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={"note": "Pod C"})
    assert edited.status_code == 200, edited.get_json()
    assert [n["kind"] for n in _mine(fresh_api)].count("open-shift-posted") == 1


def test_a_refused_write_leaves_no_notice(fresh_api, world):
    shift = _create_shift(fresh_api, _shift_body(world, _future(), world.provider))
    stale = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                            json={"version": shift["version"] + 5, "note": "New"})
    problem_of(stale, 409, "version-conflict")
    assert [n["kind"] for n in _mine(fresh_api)] == ["shift-assigned"]


# The inbox --------------------------------------------------------------------------------------


def _notices(api: Any, world: Any, count: int) -> list[dict[str, Any]]:
    for day in range(count):
        _create_shift(api, _shift_body(world, _future(3 + day), world.provider))
    return _mine(api)


def test_list_is_newest_first_with_cursor_and_unread_filter(fresh_api, world):
    notices = _notices(fresh_api, world, 3)
    assert [n["recordTime"] for n in notices] == sorted(
        (n["recordTime"] for n in notices), reverse=True)
    pages = fresh_api.walk(NOTIFICATIONS, page_size=2, user=PROVIDER)
    assert [len(p) for p in pages] == [2, 1]
    assert [n["id"] for p in pages for n in p] == [n["id"] for n in notices]
    read = fresh_api.patch(f"{NOTIFICATIONS}/{notices[1]['id']}", user=PROVIDER,
                           json={"read": True, "version": notices[1]["version"]})
    assert read.status_code == 200, read.get_json()
    assert [n["id"] for n in _mine(fresh_api, unread="true")] == [
        notices[0]["id"], notices[2]["id"]]
    assert [n["id"] for n in _mine(fresh_api, unread="false")] == [notices[1]["id"]]
    assert _unread(fresh_api) == 2
    problem_of(fresh_api.get(NOTIFICATIONS, user=PROVIDER, query_string={"unread": "maybe"}),
             400, "validation")
    problem_of(fresh_api.get(NOTIFICATIONS, user=PROVIDER, query_string={"cursor": "forged"}),
             400, "validation")


def test_mark_one_read_is_versioned_and_keeps_the_first_read_time(fresh_api, world):
    [notice] = _notices(fresh_api, world, 1)
    path = f"{NOTIFICATIONS}/{notice['id']}"
    read = fresh_api.patch(path, user=PROVIDER, json={"read": True, "version": 1}).get_json()
    assert (read["version"], read["readAt"] is not None) == (2, True)
    again = fresh_api.patch(path, user=PROVIDER, json={"read": True}).get_json()
    assert (again["version"], again["readAt"]) == (2, read["readAt"])
    body = problem_of(fresh_api.patch(path, user=PROVIDER, json={"read": False, "version": 1}),
                    409, "version-conflict")
    assert body["currentVersion"] == 2
    unread = fresh_api.patch(path, user=PROVIDER, json={"read": False, "version": 2}).get_json()
    assert (unread["version"], unread["readAt"]) == (3, None)
    assert fresh_api.get(path, user=PROVIDER).get_json() == unread


def test_someone_elses_or_an_unknown_notification_is_not_found(fresh_api, world):
    [notice] = _notices(fresh_api, world, 1)
    path = f"{NOTIFICATIONS}/{notice['id']}"
    for user in (NURSE1, MANAGER, "admin@example.com"):
        problem_of(fresh_api.get(path, user=user), 404, "notification-not-found")
        problem_of(fresh_api.patch(path, user=user, json={"read": True}), 404,
                 "notification-not-found")
    unknown = f"{NOTIFICATIONS}/{uuid.uuid4()}"
    problem_of(fresh_api.patch(unknown, user=PROVIDER, json={"read": True}), 404,
             "notification-not-found")
    problem_of(fresh_api.get(f"{NOTIFICATIONS}/not-an-id", user=PROVIDER), 400, "validation")
    problem_of(fresh_api.patch(path, user=PROVIDER, json={"read": "yes please"}), 400,
             "validation")
    problem_of(fresh_api.patch(path, user=PROVIDER, json={"read": True, "version": -1}), 400,
             "validation")
    problem_of(fresh_api.get(NOTIFICATIONS, user=None), 401, "unauthenticated")
    assert fresh_api.get(path, user=PROVIDER).get_json()["readAt"] is None


def test_mark_all_read_marks_only_the_callers_unread(fresh_api, world):
    _notices(fresh_api, world, 2)
    _create_shift(fresh_api, _shift_body(world, _future(12), ED_NURSES[0]))
    response = fresh_api.post(f"{NOTIFICATIONS}/mark-all-read", user=PROVIDER)
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"marked": 2}
    assert _unread(fresh_api) == 0
    assert all(n["version"] == 2 and n["readAt"] for n in _mine(fresh_api))
    assert _unread(fresh_api, NURSE1) == 1
    assert fresh_api.post(f"{NOTIFICATIONS}/mark-all-read", user=PROVIDER).get_json() == {
        "marked": 0}


def test_unread_count_is_one_statement(fresh_api, world):
    _notices(fresh_api, world, 1)
    fresh_api.get(f"{NOTIFICATIONS}/count", user=PROVIDER)  # the actor is kept: warm
    with fresh_api.count_queries() as statements:
        assert fresh_api.get(f"{NOTIFICATIONS}/count", user=PROVIDER,
                             query_string={"unread": "true"}).get_json() == {"count": 1}
    assert len([s for s in statements if "notifications" in s]) == 1


def test_two_marks_of_one_version_at_once_exactly_one_wins(fresh_api, world):
    [notice] = _notices(fresh_api, world, 1)
    path = f"{NOTIFICATIONS}/{notice['id']}"
    answers = fresh_api.race([("PATCH", path, PROVIDER, {"read": True, "version": 1}),
                              ("PATCH", path, PROVIDER, {"read": True, "version": 1})])
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409], [a.get_json() for a in answers]
    assert fresh_api.get(path, user=PROVIDER).get_json()["version"] == 2
