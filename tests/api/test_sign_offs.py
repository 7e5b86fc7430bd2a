"""Timesheet sign-offs (extension): POST/GET /v1/timekeeping/timesheet/sign-offs, GET and DELETE
(reopen) …/sign-offs/{signOffId}, and the writes a sign-off freezes.

The shared world: on 2 March 2026 provider@example.com worked an approved session and the other
Emergency providers punched nothing, so the Emergency team's 2 March is ready to sign off; on
3 March provider@example.com's clock-in is pending and never closed, so a range holding it is
not ready. Intensive Care belongs to icu.manager@example.com.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from app.api import models as m
from tests.factories import START, uid
from tests.problems import problem_of

SIGN_OFFS = "/v1/timekeeping/timesheet/sign-offs"
PUNCHES = "/v1/timekeeping/timecard/punches"
REQUESTS = "/v1/time-off/requests"
PTO = str(uid("policy:pto"))
ADMIN = "admin@example.com"
MANAGER = "manager@example.com"
ICU_MANAGER = "icu.manager@example.com"
PROVIDER = "provider@example.com"
FIRST_DAY = {"startDate": "2026-03-02T05:00:00+0000", "endDate": "2026-03-03T05:00:00+0000"}
TWO_DAYS = {"startDate": "2026-03-02T05:00:00+0000", "endDate": "2026-03-04T05:00:00+0000"}
READ_KEYS = {"id", "teamId", "startDate", "endDate", "providerIds", "signedBy", "signedAt",
             "reopenedBy", "reopenedAt"}


def _wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")



def _sign_off(api: Any, team: uuid.UUID, window: dict[str, str] = FIRST_DAY,
              user: str = MANAGER, **extra: Any) -> Any:
    return api.post(SIGN_OFFS, user=user, json={"teamId": str(team), **window, **extra})


def _signed(api: Any, team: uuid.UUID, window: dict[str, str] = FIRST_DAY, **extra: Any
            ) -> dict[str, Any]:
    response = _sign_off(api, team, window, **extra)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _ed_providers(api: Any, world: Any) -> list[str]:
    with api.db.unit_of_work() as session:
        return sorted(str(i) for i in session.scalars(
            select(m.Provider.id).where(m.Provider.team_id == world.ed)))


def _punch_id(api: Any, provider: uuid.UUID, action: str, state: str) -> str:
    with api.db.unit_of_work() as session:
        return str(session.scalars(select(m.TimecardPunch.id).where(
            m.TimecardPunch.provider_id == provider, m.TimecardPunch.action == action,
            m.TimecardPunch.state == state)).first())


def _segments(start: datetime, end: datetime) -> list[dict[str, str]]:
    """One working segment as a Registered Nurse of the Emergency team."""
    return [{"role": str(uid("role:Emergency:Registered Nurse")), "type": "working",
             "startDate": _wire(start), "endDate": _wire(end)}]


def _day_shifts(api: Any) -> list[tuple[Any, ...]]:
    """Every shift of 2 March as (id, provider, callout, version): what approving leave acts on."""
    with api.db.unit_of_work() as session:
        return sorted(session.execute(select(
            m.Shift.id, m.Shift.provider_id, m.Shift.is_callout, m.Shift.version).where(
            m.Shift.start_date < START + timedelta(hours=17),
            m.Shift.end_date > START - timedelta(hours=7))).tuples(), key=str)


def _leave_request(api: Any) -> str:
    """A pending PTO request of provider@example.com for 2 March (the signed-off FIRST_DAY)."""
    response = api.post(REQUESTS, user=PROVIDER, json={"policyId": PTO, **FIRST_DAY})
    assert response.status_code == 201, response.get_json()
    return str(response.get_json()["id"])


def _open_future_shift(api: Any, world: Any) -> tuple[str, datetime]:
    """An open Emergency nurse shift three days ahead, claimable by provider@example.com."""
    start = (datetime.now(UTC) + timedelta(days=3)).replace(minute=0, second=0, microsecond=0)
    created = api.post("/v1/shifts", user=MANAGER, json={
        "team": str(world.ed), "startDate": _wire(start),
        "endDate": _wire(start + timedelta(hours=8)),
        "segments": [{"role": str(world.ed_nurse_role), "type": "working",
                      "startDate": _wire(start), "endDate": _wire(start + timedelta(hours=8))}]})
    assert created.status_code == 201, created.get_json()
    return str(created.get_json()["id"]), start


def _shift_id(api: Any, provider: uuid.UUID, start: datetime) -> str:
    with api.db.unit_of_work() as session:
        return str(session.scalars(select(m.Shift.id).where(
            m.Shift.provider_id == provider, m.Shift.start_date == start)).one())


# POST ---------------------------------------------------------------------------------------


def test_create_sign_off_returns_201_with_location_and_every_provider_of_the_team(fresh_api,
                                                                                 world):
    response = _sign_off(fresh_api, world.ed)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert set(body) == READ_KEYS
    assert response.headers["Location"].endswith(f"{SIGN_OFFS}/{body['id']}")
    assert body["teamId"] == str(world.ed)
    assert (body["startDate"], body["endDate"]) == (FIRST_DAY["startDate"], FIRST_DAY["endDate"])
    assert sorted(body["providerIds"]) == _ed_providers(fresh_api, world)
    assert body["signedBy"] == str(world.manager)
    assert body["reopenedBy"] is None
    assert body["reopenedAt"] is None
    assert fresh_api.get(response.headers["Location"], user=MANAGER).get_json() == body


def test_create_sign_off_takes_only_the_providers_named(fresh_api, world):
    body = _signed(fresh_api, world.ed, TWO_DAYS, providerIds=[str(world.doctor)] * 2)
    assert body["providerIds"] == [str(world.doctor)]


def test_create_sign_off_refuses_a_timesheet_not_ready_listing_what_blocks(fresh_api, world):
    body = problem_of(_sign_off(fresh_api, world.ed, TWO_DAYS), 409, "timesheet-not-ready")
    pending = _punch_id(fresh_api, world.provider, "clock_in", "pending")
    shift = _shift_id(fresh_api, world.provider, START + timedelta(days=1))
    assert body["blocking"] == [
        {"providerId": str(world.provider), "type": "pending_punch", "punchId": pending},
        {"providerId": str(world.provider), "type": "no_clock_out", "shiftId": shift,
         "timecardId": str(uid("timecard:provider"))},
    ]
    with fresh_api.db.unit_of_work() as session:
        assert session.scalars(select(m.TimesheetSignOff)).first() is None


def test_create_sign_off_agrees_with_the_timesheet(fresh_api, world):
    sheet = fresh_api.get("/v1/timekeeping/timesheet", user=ICU_MANAGER, query_string={
        "provider": str(world.icu_nurse), **FIRST_DAY}).get_json()
    blocking = problem_of(_sign_off(fresh_api, world.icu, user=ICU_MANAGER), 409,
                        "timesheet-not-ready")["blocking"]
    assert [b["punchId"] for b in blocking if b["type"] == "pending_punch"] == [
        p["id"] for p in sheet["punches"] if p["state"] == "pending"]


def test_create_sign_off_is_ready_once_the_pending_punch_is_reviewed(fresh_api, world):
    pending = _punch_id(fresh_api, world.provider, "clock_in", "pending")
    problem_of(_sign_off(fresh_api, world.ed, TWO_DAYS), 409, "timesheet-not-ready")
    assert fresh_api.delete(f"{PUNCHES}/{pending}", user=MANAGER).status_code == 204
    _signed(fresh_api, world.ed, TWO_DAYS)


def test_create_sign_off_refuses_a_range_overlapping_an_active_sign_off(fresh_api, world):
    first = _signed(fresh_api, world.ed, providerIds=[str(world.doctor)])
    body = problem_of(_sign_off(fresh_api, world.ed, {
        "startDate": "2026-03-02T12:00:00+0000", "endDate": "2026-03-02T13:00:00+0000"}),
        409, "timesheet-signed-off")
    assert body["signOffId"] == first["id"]
    # Other providers of the team, or the next day, are not signed off yet.
    _signed(fresh_api, world.ed, providerIds=[str(world.provider)])


def test_create_sign_off_validates_the_body(fresh_api, world):
    body = problem_of(fresh_api.post(SIGN_OFFS, user=MANAGER, json={"startDate": "x"}), 400,
                    "validation")
    assert {e["path"] for e in body["errors"]} == {"/teamId", "/startDate", "/endDate"}
    body = problem_of(_sign_off(fresh_api, world.ed, providerIds=[]), 400, "validation")
    assert body["path"] == "/providerIds"
    body = problem_of(_sign_off(fresh_api, world.ed, providerIds=[
        str(world.doctor), str(world.icu_nurse), str(uuid.uuid4())]), 400, "validation")
    assert [e["path"] for e in body["errors"]] == ["/providerIds/1", "/providerIds/2"]
    body = problem_of(_sign_off(fresh_api, uuid.uuid4()), 400, "validation")
    assert body["path"] == "/teamId"
    body = problem_of(_sign_off(fresh_api, world.ed, {
        "startDate": "2026-03-02T05:00:00+0000", "endDate": "2027-03-05T05:00:00+0000"}),
        400, "validation")
    assert body["path"] == "/endDate"
    body = problem_of(_sign_off(fresh_api, world.ed, {
        "startDate": FIRST_DAY["endDate"], "endDate": FIRST_DAY["startDate"]}),
        400, "negative-range")
    assert body["path"] == "/endDate"


def test_create_sign_off_refuses_a_provider_and_another_teams_manager(fresh_api, world):
    body = problem_of(_sign_off(fresh_api, world.ed, user=PROVIDER), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("sign_off", "Timesheet")
    body = problem_of(_sign_off(fresh_api, world.ed, user=ICU_MANAGER), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("sign_off", "Timesheet")
    _signed(fresh_api, world.ed, user=ADMIN)


# GET ----------------------------------------------------------------------------------------


def test_list_sign_offs_pages_those_the_caller_may_view(fresh_api, world):
    doctor = _signed(fresh_api, world.ed, providerIds=[str(world.doctor)])
    later = _signed(fresh_api, world.ed, {"startDate": "2026-03-04T05:00:00+0000",
                                           "endDate": "2026-03-05T05:00:00+0000"})
    pages = fresh_api.walk(SIGN_OFFS, page_size=1, user=MANAGER,
                           query_string={"teamId": str(world.ed)})
    assert [[i["id"] for i in page] for page in pages] == [[doctor["id"]], [later["id"]]]
    assert fresh_api.get(SIGN_OFFS, user=ICU_MANAGER).get_json() == {"items": [],
                                                                      "cursor": None}
    mine = fresh_api.get(SIGN_OFFS, user=PROVIDER).get_json()["items"]
    assert [(i["id"], i["providerIds"]) for i in mine] == [(later["id"], [str(world.provider)])]
    window = fresh_api.get(SIGN_OFFS, user=MANAGER, query_string=FIRST_DAY).get_json()
    assert [i["id"] for i in window["items"]] == [doctor["id"]]
    by_provider = fresh_api.get(SIGN_OFFS, user=ADMIN, query_string={
        "providerId": str(world.doctor)}).get_json()
    assert [i["id"] for i in by_provider["items"]] == [doctor["id"], later["id"]]


def test_list_sign_offs_validates_the_query(api):
    body = problem_of(api.get(SIGN_OFFS, query_string={"teamId": "x", "pageSize": 0}), 400,
                    "validation")
    assert {e["path"] for e in body["errors"]} == {"teamId", "pageSize"}
    body = problem_of(api.get(SIGN_OFFS, query_string={"startDate": FIRST_DAY["endDate"],
                                                     "endDate": FIRST_DAY["startDate"]}),
                    400, "negative-range")
    assert body["path"] == "endDate"


def test_get_sign_off_answers_404_and_403(fresh_api, world):
    made = _signed(fresh_api, world.ed)
    path = f"{SIGN_OFFS}/{made['id']}"
    unknown = f"{SIGN_OFFS}/{uuid.uuid4()}"
    problem_of(fresh_api.get(unknown), 404, "timesheet-sign-off-not-found")
    problem_of(fresh_api.get(path, user=ICU_MANAGER), 403, "unauthorized")
    problem_of(fresh_api.get(f"{SIGN_OFFS}/nope"), 400, "validation")
    assert fresh_api.get(path, user=PROVIDER).get_json()["providerIds"] == [str(world.provider)]


# DELETE (reopen) ------------------------------------------------------------------------------


def test_reopen_sign_off_keeps_it_with_who_and_when_and_refuses_a_second_reopen(fresh_api,
                                                                                world):
    made = _signed(fresh_api, world.ed)
    path = f"{SIGN_OFFS}/{made['id']}"
    problem_of(fresh_api.delete(path, user=MANAGER), 403, "unauthorized")
    problem_of(fresh_api.delete(path, user=PROVIDER), 403, "unauthorized")
    before = datetime.now(UTC).replace(microsecond=0)
    assert fresh_api.delete(path, user=ADMIN).status_code == 204
    body = fresh_api.get(path, user=MANAGER).get_json()
    assert body["reopenedBy"] == str(world.admin)
    assert datetime.strptime(body["reopenedAt"], "%Y-%m-%dT%H:%M:%S%z") >= before
    body = problem_of(fresh_api.delete(path, user=ADMIN), 409, "invalid-state-transition")
    assert body["currentState"] == "reopened"
    problem_of(fresh_api.delete(f"{SIGN_OFFS}/{uuid.uuid4()}", user=ADMIN), 404,
             "timesheet-sign-off-not-found")
    # Reopened, the range may be signed off again.
    _signed(fresh_api, world.ed)


# Frozen writes ------------------------------------------------------------------------------


def test_punch_writes_in_a_signed_off_range_are_refused_until_reopened(fresh_api, world):
    made = _signed(fresh_api, world.ed)
    approved = _punch_id(fresh_api, world.provider, "break_start", "approved")
    inside = _wire(START + timedelta(hours=2))
    create = {"provider": str(world.doctor), "action": "clock_in", "time": inside}
    attempts = [
        fresh_api.post(PUNCHES, user=MANAGER, json=create),
        fresh_api.patch(f"{PUNCHES}/{approved}", user=MANAGER, json={"adminNote": "checked"}),
        fresh_api.delete(f"{PUNCHES}/{approved}", user=MANAGER),
    ]
    for response in attempts:
        assert problem_of(response, 409, "timesheet-signed-off")["signOffId"] == made["id"]
    # A punch outside the range, and moving a punch into it, are each judged by their time.
    pending = _punch_id(fresh_api, world.provider, "clock_in", "pending")
    moved = fresh_api.patch(f"{PUNCHES}/{pending}", user=MANAGER, json={"time": inside})
    problem_of(moved, 409, "timesheet-signed-off")
    assert fresh_api.patch(f"{PUNCHES}/{pending}", user=MANAGER,
                           json={"state": "approved"}).status_code == 200

    assert fresh_api.delete(f"{SIGN_OFFS}/{made['id']}", user=ADMIN).status_code == 204
    assert fresh_api.post(PUNCHES, user=MANAGER, json=create).status_code == 201
    assert fresh_api.patch(f"{PUNCHES}/{approved}", user=MANAGER,
                           json={"adminNote": "checked"}).status_code == 200
    assert fresh_api.delete(f"{PUNCHES}/{approved}", user=MANAGER).status_code == 204


def test_shift_writes_touching_a_signed_off_range_are_refused_until_reopened(fresh_api, world):
    made = _signed(fresh_api, world.ed, providerIds=[str(world.provider)])
    shift = f"/v1/shifts/{_shift_id(fresh_api, world.provider, START)}"
    later = f"/v1/shifts/{_shift_id(fresh_api, world.doctor, START + timedelta(days=3))}"
    # A note is not part of a timesheet.
    assert fresh_api.patch(shift, user=MANAGER, json={"note": "fine"}).status_code == 200
    attempts = [
        fresh_api.patch(shift, user=MANAGER, json={
            "endDate": _wire(START + timedelta(hours=11)),
            "segments": _segments(START, START + timedelta(hours=11))}),
        fresh_api.patch(shift, user=MANAGER, json={"provider": str(world.doctor)}),
        # a shift moved into the range, or given to a signed-off provider there
        fresh_api.patch(later, user=MANAGER, json={"provider": str(world.provider),
                                                   "startDate": _wire(START),
                                                   "endDate": _wire(START + timedelta(hours=12)),
                                                   "segments": _segments(
                                                       START, START + timedelta(hours=12))}),
        fresh_api.delete(shift, user=MANAGER),
        fresh_api.post("/v1/shifts", user=MANAGER, json={
            "provider": str(world.provider), "team": str(world.ed),
            "startDate": _wire(START - timedelta(hours=4)), "endDate": _wire(START),
            "segments": _segments(START - timedelta(hours=4), START)}),
    ]
    for response in attempts:
        assert problem_of(response, 409, "timesheet-signed-off")["signOffId"] == made["id"]
    assert fresh_api.delete(f"{SIGN_OFFS}/{made['id']}", user=ADMIN).status_code == 204
    assert fresh_api.patch(shift, user=MANAGER, json={
        "endDate": _wire(START + timedelta(hours=11)),
        "segments": _segments(START, START + timedelta(hours=11))}).status_code == 200
    assert fresh_api.delete(shift, user=MANAGER).status_code == 204


def test_claim_of_a_shift_in_a_signed_off_range_is_refused(fresh_api, world):
    shift_id, start = _open_future_shift(fresh_api, world)
    claim = f"/v1/shifts/{shift_id}/claim"
    made = _signed(fresh_api, world.ed, {"startDate": _wire(start - timedelta(days=1)),
                                         "endDate": _wire(start + timedelta(days=1))},
                   providerIds=[str(world.provider)])
    body = problem_of(fresh_api.post(claim, user=PROVIDER, json={}), 409, "timesheet-signed-off")
    assert body["signOffId"] == made["id"]
    assert fresh_api.delete(f"{SIGN_OFFS}/{made['id']}", user=ADMIN).status_code == 204
    response = fresh_api.post(claim, user=PROVIDER, json={})
    assert response.status_code == 200, response.get_json()


def test_claim_checks_report_a_signed_off_range_as_the_claim_answers_it(fresh_api, world):
    shift_id, start = _open_future_shift(fresh_api, world)
    made = _signed(fresh_api, world.ed, {"startDate": _wire(start - timedelta(days=1)),
                                         "endDate": _wire(start + timedelta(days=1))},
                   providerIds=[str(world.provider)])

    def check() -> dict[str, Any]:
        response = fresh_api.get("/v1/shifts/claim-checks", user=PROVIDER,
                                 query_string={"shiftIds": shift_id})
        assert response.status_code == 200, response.get_json()
        [item] = response.get_json()["items"]
        return item

    item = check()
    assert item["claimable"] is False
    [refusal] = item["refusals"]
    claimed = problem_of(fresh_api.post(f"/v1/shifts/{shift_id}/claim", user=PROVIDER, json={}),
                       409, "timesheet-signed-off")
    assert refusal == {"code": "timesheet-signed-off", "title": claimed["title"],
                       "detail": claimed["detail"], "signOffId": made["id"]}
    assert claimed["signOffId"] == made["id"]
    assert fresh_api.delete(f"{SIGN_OFFS}/{made['id']}", user=ADMIN).status_code == 204
    assert check() == {"shiftId": shift_id, "claimable": True, "refusals": [], "neededMinutes": 0}


def test_approve_time_off_that_changes_signed_off_shifts_is_refused_until_reopened(fresh_api,
                                                                                   world):
    made = _signed(fresh_api, world.ed, providerIds=[str(world.provider)])
    request = _leave_request(fresh_api)
    approve = f"{REQUESTS}/{request}/approve"
    before = _day_shifts(fresh_api)
    assert any(provider == world.provider for _, provider, _, _ in before)
    for strategy in ["delete", "deleteWithOpen", "callout", "calloutWithOpen"]:
        response = fresh_api.post(approve, user=MANAGER, json={"conflictResolution": strategy})
        assert problem_of(response, 409, "timesheet-signed-off")["signOffId"] == made["id"]
    # Nothing changed: the request waits, no shift was deleted, called out or copied.
    assert fresh_api.get(f"{REQUESTS}/{request}", user=MANAGER).get_json()["status"] == "pending"
    assert _day_shifts(fresh_api) == before

    assert fresh_api.delete(f"{SIGN_OFFS}/{made['id']}", user=ADMIN).status_code == 204
    response = fresh_api.post(approve, user=MANAGER, json={"conflictResolution": "callout"})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "approved"
    assert any(provider == world.provider and callout
               for _, provider, callout, _ in _day_shifts(fresh_api))


def test_approve_time_off_in_a_signed_off_range_is_allowed_when_it_keeps_the_shifts(fresh_api,
                                                                                    world):
    _signed(fresh_api, world.ed, providerIds=[str(world.provider)])
    request = _leave_request(fresh_api)
    before = _day_shifts(fresh_api)
    response = fresh_api.post(f"{REQUESTS}/{request}/approve", user=MANAGER,
                              json={"conflictResolution": "keepWithOpen"})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "approved"
    after = _day_shifts(fresh_api)
    # The provider's shifts are untouched; only open copies (no provider) were added.
    assert set(before) <= set(after)
    added = set(after) - set(before)
    assert added
    assert all(provider is None for _, provider, _, _ in added)


# Concurrency --------------------------------------------------------------------------------


def test_sign_offs_racing_a_punch_never_sign_off_a_pending_punch(fresh_api, world):
    nurse = uid("user:ed.nurse1@example.com")
    punch = {"provider": str(nurse), "action": "clock_in",
             "time": _wire(START + timedelta(hours=1))}
    sign_off = {"teamId": str(world.ed), **FIRST_DAY}
    responses = fresh_api.race([("POST", SIGN_OFFS, MANAGER, sign_off),
                                ("POST", PUNCHES, MANAGER, punch),
                                ("POST", SIGN_OFFS, ADMIN, sign_off)])
    signs = [responses[0], responses[2]]
    created = [r for r in signs if r.status_code == 201]
    assert len(created) <= 1
    if responses[1].status_code == 201:  # the punch came first: nothing is ready
        assert not created
        for response in signs:
            blocking = problem_of(response, 409, "timesheet-not-ready")["blocking"]
            assert {"providerId": str(nurse), "type": "pending_punch",
                    "punchId": responses[1].get_json()["id"]} in blocking
    else:  # a sign-off came first: the punch and the other sign-off are refused after it
        (winner,) = created
        signed_id = winner.get_json()["id"]
        assert problem_of(responses[1], 409, "timesheet-signed-off")["signOffId"] == signed_id
        loser = next(r for r in signs if r is not winner)
        assert problem_of(loser, 409, "timesheet-signed-off")["signOffId"] == signed_id
    with fresh_api.db.unit_of_work() as session:
        pending = session.scalars(select(m.TimecardPunch).where(
            m.TimecardPunch.provider_id == nurse, m.TimecardPunch.state == "pending")).all()
        active = session.scalars(select(m.TimesheetSignOff)).all()
    assert not (pending and active)
