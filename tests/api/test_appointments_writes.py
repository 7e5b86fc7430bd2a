"""Writing appointments: POST /v1/appointments, PATCH and DELETE /v1/appointments/{appointmentId}.

Statuses, headers and bodies, every validation, version conflicts, cancellation semantics, no
double booking, who may do what, and the races (simultaneous bookings of one slot, simultaneous
updates of one version) with real threads on each backend.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.api import models as m
from app.api.domain.appointments import Booking
from app.api.problems import ProblemError
from app.api.services import appointments as service
from tests.factories import uid
from tests.problems import problem_of

APPOINTMENTS = "/v1/appointments"
SCHEDULER = "scheduler@example.com"
MANAGER = "manager@example.com"
PROVIDER = "provider@example.com"
T0 = datetime(2031, 6, 2, 14, tzinfo=UTC)  # far from build_world's appointments


def _wire(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z")



def _body(world: Any, start: datetime = T0, minutes: int = 30, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "Follow-up",
        "providerId": str(world.doctor),
        "startDate": _wire(start),
        "endDate": _wire(start + timedelta(minutes=minutes)),
        "memberId": "member-900",
        "location": "Room 2",
    }
    body.update(overrides)
    return body


def _create(api: Any, world: Any, user: str = SCHEDULER, **kw: Any) -> dict[str, Any]:
    response = api.post(APPOINTMENTS, user=user, json=_body(world, **kw))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _patch(api: Any, appointment: dict[str, Any], user: str = SCHEDULER, **members: Any) -> Any:
    members.setdefault("version", appointment["version"])
    return api.patch(f"{APPOINTMENTS}/{appointment['id']}", user=user, json=members)


def _type_link(api: Any, appointment_id: str) -> uuid.UUID | None:
    with api.db.unit_of_work() as session:
        return session.scalar(select(m.Appointment.appointment_type_id)
                              .where(m.Appointment.id == uuid.UUID(appointment_id)))


# Create -----------------------------------------------------------------------------------------


def test_create_appointment_returns_201_location_and_the_stored_appointment(fresh_api, world):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(world))

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith(f"{APPOINTMENTS}/{body['id']}")
    created_at = body.pop("createdAt")
    assert abs(_parse(created_at) - datetime.now(UTC)) < timedelta(minutes=1)
    assert body == {
        "id": body["id"], "type": "Follow-up", "status": "upcoming",
        "providerId": str(world.doctor), "memberId": "member-900",
        "startDate": _wire(T0), "endDate": _wire(T0 + timedelta(minutes=30)),
        "actualStartDate": None, "actualEndDate": None, "location": "Room 2", "version": 1,
    }
    assert fresh_api.get(response.headers["Location"]).get_json() == {**body,
                                                                      "createdAt": created_at}


def test_create_appointment_links_the_appointment_type_of_that_name(fresh_api, world):
    linked = _create(fresh_api, world, type="Follow-up")
    unknown = _create(fresh_api, world, start=T0 + timedelta(hours=1), type="Home visit")
    archived = _create(fresh_api, world, start=T0 + timedelta(hours=2), type="Retired visit")

    assert _type_link(fresh_api, linked["id"]) == uid("atype:follow")
    assert _type_link(fresh_api, unknown["id"]) is None
    assert _type_link(fresh_api, archived["id"]) is None
    assert unknown["type"] == "Home visit"


def test_create_appointment_keeps_a_given_created_at(fresh_api, world):
    created = _create(fresh_api, world, createdAt="2031-01-01T08:00:00Z")
    assert created["createdAt"] == "2031-01-01T08:00:00+0000"


def test_create_appointment_as_cancelled_sets_the_cancellation_date_to_now(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled", cancellationReason="Booked in error")

    assert created["status"] == "cancelled"
    assert created["cancellationReason"] == "Booked in error"
    assert abs(_parse(created["cancellationDate"]) - datetime.now(UTC)) < timedelta(minutes=1)


def test_create_appointment_as_cancelled_keeps_a_given_cancellation_date(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled",
                      cancellationDate="2031-05-01T10:00:00+0000")
    assert created["cancellationDate"] == "2031-05-01T10:00:00+0000"
    assert created["cancellationReason"] is None


@pytest.mark.parametrize(("member", "value"), [("cancellationDate", "2031-05-01T10:00:00Z"),
                                               ("cancellationReason", "why")])
def test_create_appointment_rejects_cancellation_members_unless_cancelled(
        fresh_api, world, member, value):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(world, **{member: value}))
    assert problem_of(response, 400, "validation")["path"] == f"/{member}"


@pytest.mark.parametrize("minutes", [0, -30])
def test_create_appointment_rejects_end_not_after_start_as_negative_range(
        fresh_api, world, minutes):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER,
                              json=_body(world, minutes=minutes))
    assert problem_of(response, 400, "negative-range")["path"] == "/endDate"


def test_create_appointment_lasts_at_most_a_day(fresh_api, world):
    day = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(world, minutes=24 * 60))
    longer = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(
        world, T0 + timedelta(days=3), minutes=24 * 60 + 1))
    assert day.status_code == 201, day.get_json()
    assert problem_of(longer, 400, "validation")["path"] == "/endDate"


def test_update_appointment_may_not_stretch_it_past_a_day(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, endDate=_wire(T0 + timedelta(hours=24, minutes=1)))
    assert problem_of(response, 400, "validation")["path"] == "/endDate"


def test_create_appointment_rejects_actual_end_before_actual_start(fresh_api, world):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(
        world, status="occurred", actualStartDate=_wire(T0),
        actualEndDate=_wire(T0 - timedelta(minutes=1))))
    assert problem_of(response, 400, "negative-range")["path"] == "/actualEndDate"


@pytest.mark.parametrize("who", ["unknown", "dismissed"])
def test_create_appointment_rejects_an_unknown_or_dismissed_provider(fresh_api, world, who):
    provider = uuid.uuid4() if who == "unknown" else world.dismissed
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER,
                              json=_body(world, providerId=str(provider)))
    assert problem_of(response, 400, "validation")["path"] == "/providerId"


@pytest.mark.parametrize(("overrides", "path"), [
    ({"type": ""}, "/type"),
    ({"status": "done"}, "/status"),
    ({"startDate": "2031-06-02 14:00"}, "/startDate"),
    ({"providerId": "not-a-uuid"}, "/providerId"),
    ({"colour": "red"}, "/colour"),
])
def test_create_appointment_rejects_malformed_members(fresh_api, world, overrides, path):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json=_body(world, **overrides))
    assert problem_of(response, 400, "validation")["path"] == path


def test_create_appointment_rejects_missing_required_members(fresh_api, world):
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER, json={"type": "Follow-up"})
    body = problem_of(response, 400, "validation")
    assert {e["path"] for e in body["errors"]} == {"/providerId", "/startDate", "/endDate"}


@pytest.mark.parametrize("user", [PROVIDER, MANAGER])
def test_create_appointment_is_unauthorized_without_create_appointment(fresh_api, world, user):
    response = fresh_api.post(APPOINTMENTS, user=user, json=_body(world))
    body = problem_of(response, 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("create", "Appointment")


# No double booking ------------------------------------------------------------------------------


def test_create_appointment_refuses_an_overlap_listing_the_conflicts(fresh_api, world):
    first = _create(fresh_api, world)
    second = _create(fresh_api, world, start=T0 + timedelta(minutes=30))

    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER,
                              json=_body(world, start=T0 + timedelta(minutes=15)))

    body = problem_of(response, 409, "appointment-overlap")
    assert body["conflicts"] == [
        {"id": first["id"], "startDate": first["startDate"], "endDate": first["endDate"]},
        {"id": second["id"], "startDate": second["startDate"], "endDate": second["endDate"]},
    ]


def test_create_appointment_allows_back_to_back_appointments(fresh_api, world):
    _create(fresh_api, world)
    _create(fresh_api, world, start=T0 + timedelta(minutes=30))
    _create(fresh_api, world, start=T0 - timedelta(minutes=30))


def test_create_appointment_ignores_cancelled_and_other_providers_appointments(fresh_api, world):
    _create(fresh_api, world, status="cancelled")
    _create(fresh_api, world, providerId=str(world.provider))
    _create(fresh_api, world)


def test_create_appointment_books_a_non_upcoming_one_over_an_upcoming_one(fresh_api, world):
    _create(fresh_api, world)
    occurred = _create(fresh_api, world, status="occurred")
    assert occurred["status"] == "occurred"


def test_create_appointment_refuses_an_overlap_with_a_seeded_appointment(fresh_api, world):
    seeded = fresh_api.get(f"{APPOINTMENTS}/{uid('appt:0')}").get_json()
    response = fresh_api.post(APPOINTMENTS, user=SCHEDULER,
                              json=_body(world, start=_parse(seeded["startDate"])))
    conflicts = problem_of(response, 409, "appointment-overlap")["conflicts"]
    assert [c["id"] for c in conflicts] == [seeded["id"]]


# Update -----------------------------------------------------------------------------------------


def test_update_appointment_changes_named_members_and_bumps_the_version(fresh_api, world):
    created = _create(fresh_api, world)

    response = _patch(fresh_api, created, location="Room 7", memberId=str(uid("member")))

    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body == {**created, "location": "Room 7", "memberId": str(uid("member")),
                    "version": 2}
    assert fresh_api.get(f"{APPOINTMENTS}/{created['id']}").get_json() == body


def test_update_appointment_bumps_the_version_even_without_changes(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created)
    assert response.status_code == 200
    assert response.get_json()["version"] == 2


def test_update_appointment_relinks_the_appointment_type(fresh_api, world):
    created = _create(fresh_api, world, type="Home visit")
    response = _patch(fresh_api, created, type="New patient visit")
    assert response.status_code == 200
    assert _type_link(fresh_api, created["id"]) == uid("atype:new")


def test_update_appointment_clears_nullable_members_sent_as_null(fresh_api, world):
    created = _create(fresh_api, world)
    body = _patch(fresh_api, created, location=None, memberId=None).get_json()
    assert (body["location"], body["memberId"]) == (None, None)


def test_update_appointment_rejects_an_outdated_version(fresh_api, world):
    created = _create(fresh_api, world)
    assert _patch(fresh_api, created, location="Room 7").status_code == 200

    response = _patch(fresh_api, created, location="Room 8")

    assert problem_of(response, 409, "version-conflict")["currentVersion"] == 2
    assert fresh_api.get(f"{APPOINTMENTS}/{created['id']}").get_json()["location"] == "Room 7"


def test_update_appointment_without_version_applies_to_the_latest(fresh_api, world):
    created = _create(fresh_api, world)
    path = f"{APPOINTMENTS}/{created['id']}"
    first = fresh_api.patch(path, user=SCHEDULER, json={"location": "Room 7"})
    second = fresh_api.patch(path, user=SCHEDULER, json={"memberId": None})

    assert first.status_code == 200, first.get_json()
    assert second.status_code == 200, second.get_json()
    assert (second.get_json()["location"], second.get_json()["version"]) == ("Room 7", 3)


@pytest.mark.parametrize(("version", "message"), [(None, "null"), (-1, "greater"),
                                                  ("one", "integer"), (1.5, "integer")])
def test_update_appointment_rejects_a_version_that_is_no_version(fresh_api, world, version,
                                                                 message):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, version=version, location="Room 7")
    body = problem_of(response, 400, "validation")
    assert body["path"] == "/version"
    assert message in body["message"]


def test_update_appointment_checks_the_version_before_the_state(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled")
    assert _patch(fresh_api, created, cancellationReason="Moved").status_code == 200

    stale = [_patch(fresh_api, created, status="occurred"),
             _patch(fresh_api, created, createdAt="2020-01-01T00:00:00+0000"),
             _patch(fresh_api, created, endDate=created["startDate"])]

    for response in stale:
        assert problem_of(response, 409, "version-conflict")["currentVersion"] == 2


def test_update_appointment_cancels_with_the_date_and_reason(fresh_api, world):
    created = _create(fresh_api, world)

    body = _patch(fresh_api, created, status="cancelled",
                  cancellationReason="Patient asked").get_json()

    assert body["status"] == "cancelled"
    assert body["cancellationReason"] == "Patient asked"
    assert abs(_parse(body["cancellationDate"]) - datetime.now(UTC)) < timedelta(minutes=1)


def test_update_appointment_cancels_with_a_given_date(fresh_api, world):
    created = _create(fresh_api, world)
    body = _patch(fresh_api, created, status="cancelled",
                  cancellationDate="2031-05-30T09:00:00+0000").get_json()
    assert body["cancellationDate"] == "2031-05-30T09:00:00+0000"
    assert body["cancellationReason"] is None


def test_update_appointment_reopening_clears_the_cancellation(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled", cancellationReason="Ill")

    body = _patch(fresh_api, created, status="upcoming").get_json()

    assert body["status"] == "upcoming"
    assert "cancellationDate" not in body
    assert "cancellationReason" not in body
    with fresh_api.db.unit_of_work() as session:
        stored = session.get(m.Appointment, uuid.UUID(created["id"]))
        assert stored is not None
        assert (stored.cancellation_date, stored.cancellation_reason) == (None, None)


def test_update_appointment_changes_the_reason_of_a_cancelled_appointment(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled", cancellationReason="Ill")
    body = _patch(fresh_api, created, cancellationReason="Doctor away").get_json()
    assert body["cancellationReason"] == "Doctor away"
    assert body["cancellationDate"] == created["cancellationDate"]


def test_update_appointment_refuses_other_changes_to_a_cancelled_appointment(fresh_api, world):
    created = _create(fresh_api, world, status="cancelled")
    response = _patch(fresh_api, created, location="Room 9")
    assert problem_of(response, 409, "invalid-state-transition")["currentState"] == "cancelled"


@pytest.mark.parametrize(("start", "target"), [("cancelled", "occurred"),
                                               ("occurred", "cancelled")])
def test_update_appointment_refuses_moves_the_rules_lack(fresh_api, world, start, target):
    created = _create(fresh_api, world, status=start)
    response = _patch(fresh_api, created, status=target)
    assert problem_of(response, 409, "invalid-state-transition")["currentState"] == start


def test_update_appointment_rejects_cancellation_members_when_not_cancelled(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, cancellationReason="why")
    assert problem_of(response, 400, "validation")["path"] == "/cancellationReason"


def test_update_appointment_refuses_a_changed_created_at(fresh_api, world):
    created = _create(fresh_api, world)

    response = _patch(fresh_api, created, createdAt="2020-01-01T00:00:00+0000")

    assert problem_of(response, 400, "read-only-field")["paths"] == ["/createdAt"]


def test_update_appointment_accepts_the_unchanged_created_at(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, createdAt=created["createdAt"], location="Room 3")
    assert response.status_code == 200, response.get_json()


def test_update_appointment_rejects_end_before_start_as_negative_range(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, endDate=_wire(T0 - timedelta(minutes=5)))
    assert problem_of(response, 400, "negative-range")["path"] == "/endDate"


def test_update_appointment_rejects_a_member_id_that_is_no_uuid(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, memberId="member-1")
    assert problem_of(response, 400, "validation")["path"] == "/memberId"


def test_update_appointment_rejects_null_for_a_required_member(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, startDate=None)
    assert problem_of(response, 400, "validation")["path"] == "/startDate"


def test_update_appointment_rejects_an_unknown_provider(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, providerId=str(uuid.uuid4()))
    assert problem_of(response, 400, "validation")["path"] == "/providerId"


def test_update_appointment_refuses_a_move_into_an_overlap(fresh_api, world):
    first = _create(fresh_api, world)
    second = _create(fresh_api, world, start=T0 + timedelta(hours=1))

    response = _patch(fresh_api, second, startDate=_wire(T0 + timedelta(minutes=20)))

    conflicts = problem_of(response, 409, "appointment-overlap")["conflicts"]
    assert [c["id"] for c in conflicts] == [first["id"]]


def test_update_appointment_refuses_a_provider_change_into_an_overlap(fresh_api, world):
    theirs = _create(fresh_api, world, providerId=str(world.provider))
    mine = _create(fresh_api, world)
    response = _patch(fresh_api, mine, providerId=str(world.provider))
    assert [c["id"] for c in problem_of(response, 409, "appointment-overlap")["conflicts"]] == [
        theirs["id"]]


def test_update_appointment_moves_within_its_own_time(fresh_api, world):
    created = _create(fresh_api, world)
    response = _patch(fresh_api, created, endDate=_wire(T0 + timedelta(minutes=45)))
    assert response.status_code == 200, response.get_json()


def test_update_appointment_refuses_reopening_into_an_overlap(fresh_api, world):
    cancelled = _create(fresh_api, world, status="cancelled")
    booked = _create(fresh_api, world)
    response = _patch(fresh_api, cancelled, status="upcoming")
    assert [c["id"] for c in problem_of(response, 409, "appointment-overlap")["conflicts"]] == [
        booked["id"]]


def test_update_appointment_frees_the_time_when_cancelled(fresh_api, world):
    created = _create(fresh_api, world)
    assert _patch(fresh_api, created, status="cancelled").status_code == 200
    _create(fresh_api, world)


@pytest.mark.parametrize("user", [PROVIDER, MANAGER])
def test_update_appointment_is_unauthorized_without_edit_appointment(fresh_api, world, user):
    response = _patch(fresh_api, {"id": str(uid("appt:0")), "version": 1}, user=user,
                      location="Room 9")
    body = problem_of(response, 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("edit", "Appointment")


def test_update_appointment_answers_not_found(fresh_api):
    response = _patch(fresh_api, {"id": str(uuid.uuid4()), "version": 1}, location="Room 1")
    problem_of(response, 404, "appointment-not-found")


@pytest.mark.parametrize("body", [
    {"location": "Room 1"},
    {"version": 7, "status": "occurred"},
    {"version": "one", "startDate": "tomorrow", "colour": "red"},
    {"version": None},
    [],
])
def test_update_appointment_answers_not_found_whatever_the_body(fresh_api, body):
    path = f"{APPOINTMENTS}/{uuid.uuid4()}"
    response = fresh_api.patch(path, user=SCHEDULER, json=body)
    assert problem_of(response, 404, "appointment-not-found")["instance"] == path
    # A provider may edit no appointment at all: refused before the id or the body is looked at.
    response = fresh_api.patch(path, user=PROVIDER, json=body)
    assert problem_of(response, 403, "unauthorized")["instance"] == path


def test_update_appointment_answers_not_found_for_a_body_that_is_not_json(fresh_api):
    response = fresh_api.patch(f"{APPOINTMENTS}/{uuid.uuid4()}", user=SCHEDULER,
                               data="location=Room 1", content_type="text/plain")
    problem_of(response, 404, "appointment-not-found")


def test_update_appointment_rejects_a_malformed_id(fresh_api):
    response = fresh_api.patch(f"{APPOINTMENTS}/nope", json={"version": 1})
    assert problem_of(response, 400, "validation")["path"] == "appointmentId"


# Delete -----------------------------------------------------------------------------------------


def test_delete_appointment_answers_204_and_removes_it(fresh_api, world):
    created = _create(fresh_api, world)

    response = fresh_api.delete(f"{APPOINTMENTS}/{created['id']}", user=SCHEDULER)

    assert response.status_code == 204
    assert response.data == b""
    problem_of(fresh_api.get(f"{APPOINTMENTS}/{created['id']}"), 404, "appointment-not-found")
    _create(fresh_api, world)  # the time is free again


def test_delete_appointment_is_unauthorized_for_a_manager(fresh_api):
    response = fresh_api.delete(f"{APPOINTMENTS}/{uid('appt:0')}", user=MANAGER)
    problem_of(response, 403, "unauthorized")


def test_delete_appointment_answers_not_found(fresh_api):
    problem_of(fresh_api.delete(f"{APPOINTMENTS}/{uuid.uuid4()}"), 404, "appointment-not-found")


# The database backstop --------------------------------------------------------------------------


def test_booking_savepoint_turns_an_exclusion_violation_into_appointment_overlap(fresh_api, world):
    if fresh_api.backend != "postgresql":
        pytest.skip("the exclusion constraint exists on PostgreSQL only")
    existing = _create(fresh_api, world)
    clash = m.Appointment(id=uuid.uuid4(), type="Follow-up", provider_id=world.doctor,
                          start_date=T0 + timedelta(minutes=10),
                          end_date=T0 + timedelta(minutes=20))
    candidate = Booking(clash.id, clash.start_date, clash.end_date)
    # Skip the service's check, as a writer that took no provider lock would.
    with (pytest.raises(ProblemError) as raised,
          fresh_api.db.unit_of_work(write=True) as session,
          service.booking_savepoint(session, candidate, world.doctor)):
        session.add(clash)
    assert raised.value.code == "appointment-overlap"
    assert raised.value.members["conflicts"] == [
        {"id": existing["id"], "startDate": existing["startDate"],
         "endDate": existing["endDate"]}]


# Races ------------------------------------------------------------------------------------------


def test_create_appointment_race_books_exactly_one_of_ten_identical_bookings(fresh_api, world):
    calls = [("POST", APPOINTMENTS, SCHEDULER, _body(world, memberId=f"member-{i}"))
             for i in range(10)]

    responses = fresh_api.race(calls)

    created = [r for r in responses if r.status_code == 201]
    assert len(created) == 1, [r.get_json() for r in responses]
    winner = created[0].get_json()
    losers = [r for r in responses if r.status_code != 201]
    assert len(losers) == 9
    for response in losers:
        conflicts = problem_of(response, 409, "appointment-overlap")["conflicts"]
        assert [c["id"] for c in conflicts] == [winner["id"]]
    listed = fresh_api.get(APPOINTMENTS, query_string={
        "providerId": str(world.doctor), "startDate": _wire(T0 - timedelta(hours=1)),
        "endDate": _wire(T0 + timedelta(hours=1))}).get_json()["items"]
    assert [a["id"] for a in listed] == [winner["id"]]


def test_update_appointment_race_lets_exactly_one_of_twenty_same_version_updates_win(
        fresh_api, world):
    created = _create(fresh_api, world)
    path = f"{APPOINTMENTS}/{created['id']}"
    calls = [("PATCH", path, SCHEDULER, {"version": 1, "location": f"Room {i}"})
             for i in range(20)]

    responses = fresh_api.race(calls)

    ok = [r for r in responses if r.status_code == 200]
    assert len(ok) == 1, [r.get_json() for r in responses]
    conflicts = [r for r in responses if r.status_code != 200]
    assert len(conflicts) == 19
    for response in conflicts:
        assert problem_of(response, 409, "version-conflict")["currentVersion"] == 2
    stored = fresh_api.get(path).get_json()
    assert stored["version"] == 2
    assert stored["location"] == ok[0].get_json()["location"]
