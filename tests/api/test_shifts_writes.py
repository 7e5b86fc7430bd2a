"""Writing shifts (extensions): POST /v1/shifts, PATCH and DELETE /v1/shifts/{shiftId} and
POST /v1/shifts/{shiftId}/claim.

Statuses, headers and bodies, every validation path and problem code with its members, who may do
what, and the races: simultaneous claims of one shift and simultaneous updates of one version,
with real threads on each backend.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.api import models as m
from app.contract.common import format_timestamp
from tests.factories import make_provider, make_shift, uid
from tests.problems import problem_of

MANAGER = "manager@example.com"
ICU_MANAGER = "icu.manager@example.com"
PROVIDER = "provider@example.com"
NURSE = "ed.nurse1@example.com"
ICU_NURSE = "icu.nurse@example.com"


def _wire(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _future(days: float = 5) -> datetime:
    """A whole hour `days` from the real clock (claims compare with the real clock)."""
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=days)



def _segment(start: datetime, end: datetime, role: uuid.UUID, **extra: Any) -> dict[str, Any]:
    return {"role": str(role), "type": "working", "startDate": _wire(start),
            "endDate": _wire(end), **extra}


def _body(world: Any, start: datetime | None = None, hours: int = 8,
          **overrides: Any) -> dict[str, Any]:
    """An ED shift: working, a 30-minute unpaid break, working."""
    start = start or _future()
    end = start + timedelta(hours=hours)
    pause = start + timedelta(hours=4)
    resume = pause + timedelta(minutes=30)
    body: dict[str, Any] = {
        "startDate": _wire(start),
        "endDate": _wire(end),
        "team": str(world.ed),
        "segments": [
            _segment(start, pause, world.ed_nurse_role, labels=[str(uid("label:charge"))]),
            _segment(pause, resume, world.ed_nurse_role, type="unpaid_break"),
            _segment(resume, end, world.ed_nurse_role),
        ],
        "payCodes": [{"payCodeId": str(uid("pay:REG"))}],
        "note": "Pod B",
    }
    body.update(overrides)
    return body


def _create(api: Any, world: Any, user: str = MANAGER, **overrides: Any) -> dict[str, Any]:
    response = api.post("/v1/shifts", user=user, json=_body(world, **overrides))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _open_shift(api: Any, world: Any, start: datetime | None = None, *,
                team: uuid.UUID | None = None, role: uuid.UUID | None = None,
                skill: dict[str, Any] | None = None, provider: uuid.UUID | None = None,
                **kw: Any) -> str:
    """Store a shift (open unless `provider`) straight in the database; return its id."""
    with api.db.unit_of_work(write=True) as session:
        person = session.get(m.Provider, provider) if provider else None
        shift = make_shift(session, provider=person,
                           team=session.get(m.Team, team or world.ed),
                           role=session.get(m.Role, role or world.ed_nurse_role),
                           start=start or _future(), hours=8, break_at=None, **kw)
        shift.segments[0].skill_requirement = skill
        session.flush()
        return str(shift.id)


def _claim(api: Any, shift_id: str, user: str = PROVIDER, **body: Any) -> Any:
    return api.post(f"/v1/shifts/{shift_id}/claim", user=user, json=body)


# Create -----------------------------------------------------------------------------------------


def test_create_shift_returns_201_location_and_the_stored_shift(fresh_api, world):
    start = _future()
    response = fresh_api.post("/v1/shifts", user=MANAGER, json=_body(world, start))

    assert response.status_code == 201, response.get_json()
    shift = response.get_json()
    assert response.headers["Location"].endswith(f"/v1/shifts/{shift['id']}")
    assert shift["provider"] is None
    assert shift["version"] == 1
    assert shift["startDate"] == _wire(start)
    assert shift["team"] == str(world.ed)
    assert shift["note"] == "Pod B"
    assert shift["payCodes"] == [{"payCodeId": str(uid("pay:REG"))}]
    assert [s["type"] for s in shift["segments"]] == ["working", "unpaid_break", "working"]
    assert [s["isBreak"] for s in shift["segments"]] == [False, True, False]
    assert shift["segments"][0]["labels"] == [str(uid("label:charge"))]
    stored = fresh_api.get(response.headers["Location"]).get_json()
    assert stored == shift


def test_create_shift_assigns_the_provider_when_given(fresh_api, world):
    shift = _create(fresh_api, world, provider=str(world.provider))

    assert shift["provider"] == str(world.provider)
    mine = fresh_api.get(f"/v1/shifts/{shift['id']}", user=PROVIDER)
    assert mine.status_code == 200


def test_create_shift_stores_segment_skill_requirement(fresh_api, world):
    start = _future()
    requirement = {"type": "or", "entries": [
        {"type": "equal", "skill": "certification", "value": "ACLS"},
        {"type": "equal", "skill": "language", "value": "Spanish"}]}
    body = _body(world, start, segments=[
        _segment(start, start + timedelta(hours=8), world.ed_nurse_role,
                 skillRequirement=requirement)])

    response = fresh_api.post("/v1/shifts", user=MANAGER, json=body)

    assert response.status_code == 201, response.get_json()
    assert response.get_json()["segments"][0]["skillRequirement"] == requirement


def test_create_shift_rejects_end_before_start_as_negative_range(fresh_api, world):
    start = _future()
    body = _body(world, start, endDate=_wire(start - timedelta(hours=1)))

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400,
                       "negative-range")

    assert problem["path"] == "/endDate"


def test_create_shift_lasts_at_most_a_day(fresh_api, world):
    start = _future()
    day = fresh_api.post("/v1/shifts", user=MANAGER, json=_body(world, start, hours=24))
    longer = fresh_api.post("/v1/shifts", user=MANAGER, json=_body(
        world, start + timedelta(days=2), endDate=_wire(start + timedelta(days=3, minutes=1))))

    assert day.status_code == 201, day.get_json()
    assert problem_of(longer, 400, "validation")["path"] == "/endDate"


def test_update_shift_may_not_stretch_it_past_a_day(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "startDate": _wire(start - timedelta(hours=17))}), 400, "validation")

    assert problem["path"] == "/endDate"
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").get_json()["version"] == 1


@pytest.mark.parametrize(("index", "move", "path"), [
    (0, {"startDate": -1}, "/segments/0/startDate"),
    (2, {"endDate": 1}, "/segments/2/endDate"),
    (1, {"startDate": -4}, "/segments/1/startDate"),
])
def test_create_shift_rejects_segments_outside_the_shift_or_overlapping(
        fresh_api, world, index, move, path):
    start = _future()
    body = _body(world, start)
    for key, hours in move.items():
        moved = datetime.strptime(body["segments"][index][key], "%Y-%m-%dT%H:%M:%S%z")
        body["segments"][index][key] = _wire(moved + timedelta(hours=hours))

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == path


def test_create_shift_rejects_segment_ending_before_it_starts(fresh_api, world):
    start = _future()
    body = _body(world, start, segments=[
        _segment(start + timedelta(hours=2), start + timedelta(hours=1), world.ed_nurse_role)])

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/segments/0/endDate"


def test_create_shift_rejects_unknown_role(fresh_api, world):
    body = _body(world)
    body["segments"][1]["role"] = str(uuid.uuid4())

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/segments/1/role"


def test_create_shift_rejects_role_of_another_team(fresh_api, world):
    body = _body(world)
    body["segments"][2]["role"] = str(world.icu_nurse_role)

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/segments/2/role"
    assert "another team" in problem["message"]


def test_create_shift_accepts_roles_of_any_team_without_team(fresh_api, world):
    body = _body(world, team=None)
    body["segments"][2]["role"] = str(world.icu_nurse_role)

    response = fresh_api.post("/v1/shifts", json=body)

    assert response.status_code == 201, response.get_json()
    assert response.get_json()["team"] is None


def test_create_shift_rejects_unknown_and_repeated_labels(fresh_api, world):
    body = _body(world)
    charge = str(uid("label:charge"))
    body["segments"][0]["labels"] = [charge, str(uuid.uuid4()), charge]

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/segments/0/labels/1"
    assert [e["path"] for e in problem["errors"]] == ["/segments/0/labels/1",
                                                      "/segments/0/labels/2"]


def test_create_shift_rejects_unknown_pay_code(fresh_api, world):
    body = _body(world, payCodes=[{"payCodeId": str(uuid.uuid4())}])

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/payCodes/0/payCodeId"


def test_create_shift_rejects_more_than_one_pay_code(fresh_api, world):
    code = {"payCodeId": str(uid("pay:REG"))}
    body = _body(world, payCodes=[code, {"payCodeId": str(uid("pay:ONC"))}])

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert problem["path"] == "/payCodes"


@pytest.mark.parametrize("provider", [uid("nobody"), uid("user:gone@example.com")],
                         ids=["unknown", "dismissed"])
def test_create_shift_rejects_unknown_or_dismissed_provider(fresh_api, world, provider):
    problem = problem_of(fresh_api.post("/v1/shifts", json=_body(world, provider=str(provider))),
                       400, "validation")

    assert problem["path"] == "/provider"


def test_create_shift_rejects_unknown_team(fresh_api, world):
    body = _body(world, team=str(uuid.uuid4()))

    problem = problem_of(fresh_api.post("/v1/shifts", json=body), 400, "validation")

    assert problem["path"] == "/team"


def test_create_shift_lists_every_failure(fresh_api, world):
    body = _body(world, provider=str(uuid.uuid4()))
    body["segments"][0]["role"] = str(uuid.uuid4())

    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER, json=body), 400, "validation")

    assert {e["path"] for e in problem["errors"]} == {"/provider", "/segments/0/role"}


@pytest.mark.parametrize("user", [PROVIDER, ICU_MANAGER, "scheduler@example.com"])
def test_create_shift_is_unauthorized_outside_the_callers_teams(fresh_api, world, user):
    problem = problem_of(fresh_api.post("/v1/shifts", user=user, json=_body(world)), 403,
                       "unauthorized")

    assert problem["action"] == "create"
    assert problem["resource"] == "Shift"


def test_create_shift_rejects_missing_segments(fresh_api, world):
    problem = problem_of(fresh_api.post("/v1/shifts", user=MANAGER,
                                      json=_body(world, segments=[])), 400, "validation")

    assert problem["path"] == "/segments"


# Update -----------------------------------------------------------------------------------------


def test_update_shift_changes_named_members_and_bumps_the_version(fresh_api, world):
    shift = _create(fresh_api, world)

    response = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                               json={"version": 1, "note": "Moved to pod C"})

    assert response.status_code == 200, response.get_json()
    updated = response.get_json()
    assert updated["version"] == 2
    assert updated["note"] == "Moved to pod C"
    assert updated["segments"] == shift["segments"]
    assert updated["payCodes"] == shift["payCodes"]
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").get_json() == updated


def test_update_shift_replaces_segments_and_bumps_the_version(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)
    segments = [_segment(start, start + timedelta(hours=8), world.ed_doctor_role)]

    response = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                               json={"version": 1, "segments": segments})

    assert response.status_code == 200, response.get_json()
    updated = response.get_json()
    assert updated["version"] == 2
    assert [s["role"] for s in updated["segments"]] == [str(world.ed_doctor_role)]
    assert updated["segments"][0]["labels"] == []
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").get_json()["segments"] == \
        updated["segments"]


def test_update_shift_replaces_and_clears_pay_codes(fresh_api, world):
    shift = _create(fresh_api, world)
    path = f"/v1/shifts/{shift['id']}"

    replaced = fresh_api.patch(path, user=MANAGER, json={
        "version": 1, "payCodes": [{"payCodeId": str(uid("pay:ONC")), "value": 75.0}]})
    cleared = fresh_api.patch(path, user=MANAGER, json={"version": 2, "payCodes": []})

    assert replaced.status_code == 200, replaced.get_json()
    assert replaced.get_json()["payCodes"] == [{"payCodeId": str(uid("pay:ONC")), "value": 75.0}]
    assert cleared.status_code == 200, cleared.get_json()
    assert cleared.get_json()["payCodes"] == []
    assert cleared.get_json()["version"] == 3


def test_update_shift_opens_a_shift_with_null_provider(fresh_api, world):
    shift = _create(fresh_api, world, provider=str(world.provider))

    response = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                               json={"version": 1, "provider": None})

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["provider"] is None


def test_update_shift_rejects_an_outdated_version(fresh_api, world):
    shift = _create(fresh_api, world)
    path = f"/v1/shifts/{shift['id']}"
    assert fresh_api.patch(path, user=MANAGER, json={"version": 1, "note": "a"}).status_code == 200

    problem = problem_of(fresh_api.patch(path, user=MANAGER, json={"version": 1, "note": "b"}),
                       409, "version-conflict")

    assert problem["currentVersion"] == 2
    assert fresh_api.get(path).get_json()["note"] == "a"


def test_update_shift_without_version_applies_to_the_latest(fresh_api, world):
    shift = _create(fresh_api, world)
    path = f"/v1/shifts/{shift['id']}"

    first = fresh_api.patch(path, user=MANAGER, json={"note": "x"})
    second = fresh_api.patch(path, user=MANAGER, json={"isCallout": False})

    assert first.status_code == 200, first.get_json()
    assert second.status_code == 200, second.get_json()
    assert (second.get_json()["note"], second.get_json()["version"]) == ("x", 3)


def test_update_shift_rejects_a_null_version(fresh_api, world):
    shift = _create(fresh_api, world)

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                                       json={"version": None, "note": "x"}), 400, "validation")

    assert problem["path"] == "/version"


def test_update_shift_checks_the_version_before_the_change(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)
    path = f"/v1/shifts/{shift['id']}"
    assert fresh_api.patch(path, user=MANAGER, json={"note": "a"}).status_code == 200

    stale = [fresh_api.patch(path, user=MANAGER, json={
                 "version": 1, "endDate": _wire(start - timedelta(minutes=1))}),
             fresh_api.patch(path, user=MANAGER, json={
                 "version": 1, "endDate": _wire(start + timedelta(hours=6))})]

    for response in stale:
        assert problem_of(response, 409, "version-conflict")["currentVersion"] == 2


def test_update_shift_rejects_end_before_start_as_negative_range(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "endDate": _wire(start - timedelta(minutes=1))}), 400, "negative-range")

    assert problem["path"] == "/endDate"


def test_update_shift_rejects_times_that_cut_the_current_segments(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "endDate": _wire(start + timedelta(hours=6))}), 400, "validation")

    assert problem["path"] == "/segments"


def test_update_shift_rejects_new_segments_outside_new_times(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)
    segments = [_segment(start, start + timedelta(hours=8), world.ed_nurse_role)]

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "startDate": _wire(start + timedelta(hours=1)), "segments": segments}),
        400, "validation")

    assert problem["path"] == "/segments/0/startDate"


def test_update_shift_rejects_unknown_label_in_new_segments(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)
    segments = [_segment(start, start + timedelta(hours=8), world.ed_nurse_role,
                         labels=[str(uuid.uuid4())])]

    problem = problem_of(fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "segments": segments}), 400, "validation")

    assert problem["path"] == "/segments/0/labels/0"


def test_update_shift_is_unauthorized_for_a_team_the_caller_does_not_manage(fresh_api, world):
    start = _future()
    shift = _create(fresh_api, world, start=start)
    segments = [_segment(start, start + timedelta(hours=8), world.icu_nurse_role)]

    moved = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER, json={
        "version": 1, "team": str(world.icu), "segments": segments})
    other = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=ICU_MANAGER,
                            json={"version": 1, "note": "mine now"})

    assert problem_of(moved, 403, "unauthorized")["action"] == "edit"
    problem_of(other, 403, "unauthorized")
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").get_json()["version"] == 1


def test_update_shift_is_unauthorized_for_a_provider_on_their_own_shift(fresh_api, world):
    shift = _create(fresh_api, world, provider=str(world.provider))

    response = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=PROVIDER,
                               json={"version": 1, "note": "swap?"})

    problem_of(response, 403, "unauthorized")


def test_update_shift_answers_not_found(fresh_api):
    response = fresh_api.patch(f"/v1/shifts/{uuid.uuid4()}", json={"version": 1})

    problem_of(response, 404, "shift-not-found")


@pytest.mark.parametrize("body", [{"note": "x"}, {"version": 3, "endDate": "yesterday"},
                                  {"version": None, "segments": []}, "nope"])
def test_update_shift_answers_not_found_whatever_the_body(fresh_api, body):
    for user in (MANAGER, PROVIDER):
        response = fresh_api.patch(f"/v1/shifts/{uuid.uuid4()}", user=user, json=body)

        problem_of(response, 404, "shift-not-found")


# Delete -----------------------------------------------------------------------------------------


def test_delete_shift_answers_204_and_removes_it(fresh_api, world):
    shift = _create(fresh_api, world)

    response = fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER)

    assert response.status_code == 204
    assert response.data == b""
    problem_of(fresh_api.get(f"/v1/shifts/{shift['id']}"), 404, "shift-not-found")


def test_delete_shift_with_a_version_deletes_only_that_version(fresh_api, world):
    shift = _create(fresh_api, world)
    moved = fresh_api.patch(f"/v1/shifts/{shift['id']}", user=MANAGER,
                            json={"version": shift["version"], "note": "Changed meanwhile"})
    assert moved.status_code == 200, moved.get_json()

    stale = fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER,
                             query_string={"version": shift["version"]})

    body = problem_of(stale, 409, "version-conflict")
    assert body["currentVersion"] == moved.get_json()["version"]
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").status_code == 200
    current = fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER,
                               query_string={"version": moved.get_json()["version"]})
    assert current.status_code == 204


@pytest.mark.parametrize("version", ["-1", "two", "1.5", ""])
def test_delete_shift_refuses_a_malformed_version(fresh_api, world, version):
    shift = _create(fresh_api, world)

    response = fresh_api.delete(f"/v1/shifts/{shift['id']}", user=MANAGER,
                                query_string={"version": version})

    assert response.status_code == 400, response.get_json()
    assert fresh_api.get(f"/v1/shifts/{shift['id']}").status_code == 200


def test_delete_shift_is_unauthorized_for_a_provider_even_on_an_open_shift(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    problem_of(fresh_api.delete(f"/v1/shifts/{shift_id}", user=PROVIDER), 403, "unauthorized")
    assert fresh_api.get(f"/v1/shifts/{shift_id}").status_code == 200


def test_delete_shift_answers_not_found(fresh_api):
    problem_of(fresh_api.delete(f"/v1/shifts/{uuid.uuid4()}"), 404, "shift-not-found")


# Claim ------------------------------------------------------------------------------------------


def test_claim_shift_gives_the_open_shift_to_the_caller(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    response = _claim(fresh_api, shift_id)

    assert response.status_code == 200, response.get_json()
    claimed = response.get_json()
    assert claimed["provider"] == str(world.provider)
    assert claimed["version"] == 2
    assert fresh_api.get(f"/v1/shifts/{shift_id}", user=PROVIDER).get_json() == claimed
    with fresh_api.db.unit_of_work() as session:
        assert session.get(m.Shift, uuid.UUID(shift_id)).claimed_at is not None


def test_update_shift_refuses_a_provider_who_may_only_claim_it(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)
    version = fresh_api.get(f"/v1/shifts/{shift_id}", user=PROVIDER).get_json()["version"]

    response = fresh_api.patch(f"/v1/shifts/{shift_id}", user=PROVIDER,
                               json={"version": version, "note": "mine now"})

    body = problem_of(response, 403, "unauthorized")
    assert body["action"] == "create"


def test_claim_shift_refuses_a_claimed_shift(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)
    assert _claim(fresh_api, shift_id, user=NURSE).status_code == 200

    problem_of(_claim(fresh_api, shift_id), 409, "shift-already-claimed")


def test_claim_shift_refuses_a_started_shift(fresh_api, world):
    shift_id = _open_shift(fresh_api, world, start=_future(days=-1 / 24))

    problem_of(_claim(fresh_api, shift_id), 409, "shift-already-started")


def test_claim_shift_refuses_the_seeded_past_open_shift(fresh_api, world):
    with fresh_api.db.unit_of_work() as session:
        shift_id = session.scalars(select(m.Shift.id).where(
            m.Shift.provider_id.is_(None), m.Shift.team_id == world.ed)).one()

    problem_of(_claim(fresh_api, str(shift_id)), 409, "shift-already-started")


def test_claim_shift_refuses_inside_the_default_notice_window(fresh_api, world):
    start = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=90)
    shift_id = _open_shift(fresh_api, world, start=start)

    problem = problem_of(_claim(fresh_api, shift_id), 409, "shift-claim-window-closed")

    assert problem["shiftId"] == shift_id
    assert problem["minimumNoticeMinutes"] == fresh_api.settings.claim_notice_minutes == 120
    assert problem["startsAt"] == _wire(start)


def test_claim_shift_uses_the_shifts_own_minimum_notice(fresh_api, world):
    soon = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=90)
    relaxed = _open_shift(fresh_api, world, start=soon, minimum_notice_minutes=30)
    strict = _open_shift(fresh_api, world, start=_future(days=1),
                         minimum_notice_minutes=3 * 24 * 60)

    assert _claim(fresh_api, relaxed).status_code == 200
    problem = problem_of(_claim(fresh_api, strict), 409, "shift-claim-window-closed")
    assert problem["minimumNoticeMinutes"] == 3 * 24 * 60


def test_claim_shift_refuses_a_provider_missing_required_skills(fresh_api, world):
    requirement = {"type": "and", "entries": [
        {"type": "equal", "skill": "language", "value": "Spanish"},  # held
        {"type": "equal", "skill": "certification", "value": "PALS"},
        {"type": "equal", "skill": "language", "value": "Tagalog"},
        {"type": "equal", "skill": "licensed_region", "value": "CA"},
        {"type": "equal", "skill": "enrollment", "value": "Medicaid"},
    ]}
    shift_id = _open_shift(fresh_api, world, skill=requirement)

    problem = problem_of(_claim(fresh_api, shift_id), 409, "shift-missing-skills")

    assert problem["shiftId"] == shift_id
    assert problem["missingSkills"] == [
        {"name": "certification", "value": "PALS", "type": "custom"},
        {"name": "language", "value": "Tagalog", "type": "language"},
        {"name": "licensed_region", "value": "CA", "type": "licensed_region"},
        {"name": "enrollment", "value": "Medicaid", "type": "enrollment"},
    ]


def test_claim_shift_accepts_a_provider_meeting_the_requirement(fresh_api, world):
    requirement = {"type": "and", "entries": [
        {"type": "equal", "skill": "certification", "value": "ACLS"},
        {"type": "equal", "skill": "licensed_region", "value": "NY"},
        {"type": "or", "entries": [{"type": "equal", "skill": "language", "value": "Tagalog"},
                                   {"type": "equal", "skill": "language", "value": "Spanish"}]},
    ]}
    shift_id = _open_shift(fresh_api, world, skill=requirement)

    response = _claim(fresh_api, shift_id)

    assert response.status_code == 200, response.get_json()


def test_claim_shift_refuses_an_overlap_with_the_providers_schedule(fresh_api, world):
    start = _future()
    busy = start - timedelta(hours=4)
    _open_shift(fresh_api, world, start=busy, provider=world.provider)
    shift_id = _open_shift(fresh_api, world, start=start)

    problem = problem_of(_claim(fresh_api, shift_id), 409, "shift-schedule-conflict")

    assert problem["shiftId"] == shift_id
    assert problem["conflicts"] == [{"startDate": _wire(busy),
                                     "endDate": _wire(busy + timedelta(hours=8))}]


def test_claim_shift_ignores_callouts_and_touching_shifts(fresh_api, world):
    start = _future()
    _open_shift(fresh_api, world, start=start, provider=world.provider, is_callout=True)
    _open_shift(fresh_api, world, start=start - timedelta(hours=8), provider=world.provider)
    shift_id = _open_shift(fresh_api, world, start=start)

    response = _claim(fresh_api, shift_id)

    assert response.status_code == 200, response.get_json()


def test_claim_shift_is_unauthorized_for_a_provider_of_another_team(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    problem_of(_claim(fresh_api, shift_id, user=ICU_NURSE), 403, "unauthorized")


def test_claim_shift_lets_a_manager_claim_for_a_provider(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    response = _claim(fresh_api, shift_id, user=MANAGER, provider=str(world.doctor))

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["provider"] == str(world.doctor)


def test_claim_shift_is_unauthorized_for_a_provider_claiming_for_someone_else(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    problem_of(_claim(fresh_api, shift_id, provider=str(world.doctor)), 403, "unauthorized")


def test_claim_shift_needs_a_provider_when_the_caller_is_none(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    problem = problem_of(_claim(fresh_api, shift_id, user=MANAGER), 400, "validation")

    assert problem["path"] == "/provider"


def test_claim_shift_rejects_an_unknown_provider(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)

    problem = problem_of(_claim(fresh_api, shift_id, user="admin@example.com",
                              provider=str(uuid.uuid4())), 400, "validation")

    assert problem["path"] == "/provider"


def test_claim_shift_answers_not_found(fresh_api):
    problem_of(_claim(fresh_api, str(uuid.uuid4())), 404, "shift-not-found")


def test_claim_shift_checks_skills_of_a_new_provider(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        ed = session.get(m.Team, world.ed)
        nurse = make_provider(session, "new.nurse@example.com", ed, "New Nurse",
                              skills={"certification": ["PALS"]}, licensed_regions=["NJ"])
        nurse.user.rbac_roles = [session.scalars(
            select(m.RbacRole).where(m.RbacRole.name == "Provider")).one()]
        nurse.roles = [session.get(m.Role, world.ed_nurse_role)]
    shift_id = _open_shift(fresh_api, world, skill={
        "type": "equal", "skill": "certification", "value": "PALS"})

    response = _claim(fresh_api, shift_id, user="new.nurse@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["provider"] == str(uid("user:new.nurse@example.com"))


def test_claim_shift_refuses_a_role_the_provider_does_not_hold(fresh_api, world):
    shift_id = _open_shift(fresh_api, world, role=world.ed_doctor_role)

    problem = problem_of(_claim(fresh_api, shift_id), 409, "shift-role-not-held")

    assert problem["shiftId"] == shift_id
    assert problem["roles"] == [{"id": str(world.ed_doctor_role), "name": "Physician"}]
    assert "Physician" in problem["detail"]
    shift = fresh_api.get(f"/v1/shifts/{shift_id}").get_json()
    assert shift["provider"] is None  # still open


def test_claim_shift_by_a_manager_assigns_whatever_role_the_provider_holds(fresh_api, world):
    shift_id = _open_shift(fresh_api, world, role=world.ed_doctor_role)

    response = _claim(fresh_api, shift_id, user=MANAGER, provider=str(world.provider))

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["provider"] == str(world.provider)


def test_claim_shift_refuses_a_shift_in_approved_time_off(fresh_api, world):
    start = _future(days=9)
    shift_id = _open_shift(fresh_api, world, start=start)
    leave = fresh_api.post("/v1/time-off/requests", user=PROVIDER, json={
        "policyId": str(uid("policy:pto")), "isFullDay": False,
        "startDate": format_timestamp(start - timedelta(hours=1)),
        "endDate": format_timestamp(start + timedelta(hours=2))}).get_json()
    assert fresh_api.post(f"/v1/time-off/requests/{leave['id']}/approve", user=MANAGER,
                          json={"conflictResolution": "keep"}).status_code == 200

    problem = problem_of(_claim(fresh_api, shift_id), 409, "shift-time-off-conflict")

    assert [t["id"] for t in problem["timeOff"]] == [leave["id"]]


def test_claim_checks_say_why_beside_each_shift_in_the_order_asked(fresh_api, world):
    free = _open_shift(fresh_api, world, start=_future(days=6))
    doctors = _open_shift(fresh_api, world, role=world.ed_doctor_role, start=_future(days=7))
    soon = _open_shift(fresh_api, world, start=_future(days=0.05))  # 13 to 72 min ahead
    missing = str(uuid.uuid4())

    response = fresh_api.get("/v1/shifts/claim-checks", user=PROVIDER,
                             query_string={"shiftIds": f"{doctors},{missing},{free},{soon}"})

    assert response.status_code == 200, response.get_json()
    items = response.get_json()["items"]
    assert [i["shiftId"] for i in items] == [doctors, free, soon]  # the unknown one left out
    by_id = {i["shiftId"]: i for i in items}
    assert by_id[free] == {"shiftId": free, "claimable": True, "refusals": [],
                           "neededMinutes": 0}
    assert by_id[doctors]["claimable"] is False
    [refusal] = by_id[doctors]["refusals"]
    assert refusal["code"] == "shift-role-not-held"
    assert refusal["title"] == "Shift needs a role the provider does not hold"
    assert refusal["roles"] == [{"id": str(world.ed_doctor_role), "name": "Physician"}]
    assert [r["code"] for r in by_id[soon]["refusals"]] == ["shift-claim-window-closed"]
    # The check agrees with the claim itself.
    problem_of(_claim(fresh_api, doctors), 409, "shift-role-not-held")
    assert _claim(fresh_api, free).status_code == 200


@pytest.mark.parametrize("query", [
    {},
    {"shiftIds": "not-an-id"},
    {"shiftIds": ",".join(str(uuid.uuid4()) for _ in range(201))},
])
def test_claim_checks_validate_their_ids(api, query):
    problem = problem_of(api.get("/v1/shifts/claim-checks", user=PROVIDER, query_string=query),
                       400, "validation")
    assert problem["path"] == "shiftIds"


def test_claim_checks_need_a_provider_for_callers_who_are_none(api, world):
    shift = str(world.ids.get("open_shift", uuid.uuid4()))
    problem = problem_of(api.get("/v1/shifts/claim-checks", user=MANAGER,
                               query_string={"shiftIds": shift}), 400, "validation")
    assert problem["path"] == "provider"


# Races ------------------------------------------------------------------------------------------


def test_claim_shift_race_gives_the_shift_to_exactly_one_provider(fresh_api, world):
    shift_id = _open_shift(fresh_api, world)
    path = f"/v1/shifts/{shift_id}/claim"

    responses = fresh_api.race([("POST", path, PROVIDER, {}), ("POST", path, NURSE, {})])

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], [r.get_json() for r in responses]
    winner = next(r for r in responses if r.status_code == 200).get_json()
    loser = next(r for r in responses if r.status_code == 409)
    problem_of(loser, 409, "shift-already-claimed")
    stored = fresh_api.get(f"/v1/shifts/{shift_id}").get_json()
    assert stored["provider"] == winner["provider"]
    assert stored["version"] == 2


def test_update_shift_race_lets_exactly_one_of_twenty_same_version_updates_win(fresh_api, world):
    shift = _create(fresh_api, world)
    path = f"/v1/shifts/{shift['id']}"
    calls = [("PATCH", path, MANAGER, {"version": 1, "note": f"edit {i}"}) for i in range(20)]

    responses = fresh_api.race(calls)

    ok = [r for r in responses if r.status_code == 200]
    assert len(ok) == 1, [r.get_json() for r in responses]
    conflicts = [r for r in responses if r.status_code != 200]
    assert len(conflicts) == 19
    for response in conflicts:
        assert problem_of(response, 409, "version-conflict")["currentVersion"] == 2
    stored = fresh_api.get(path).get_json()
    assert stored["version"] == 2
    assert stored["note"] == ok[0].get_json()["note"]
