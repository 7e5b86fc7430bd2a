"""Writing punches: POST /v1/timekeeping/timecard/punches, PATCH (extension) and DELETE
/v1/timekeeping/timecard/punches/{punchId}.

The shared world has provider@example.com's timecard for 23 Feb to 9 Mar 2026: an approved session
on 2 March (clock-in 11:56, break 18:00 to 18:30, clock-out 00:02 UTC) and a pending clock-in on
3 March at 12:25 that was never closed. Punches dated "now" land on a timecard that does not exist
yet (the real clock is months later), so the API creates it.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from app.api import models as m
from app.api.domain.intervals import Interval
from app.api.services.timekeeping import create_timecard
from tests.factories import START, uid
from tests.problems import problem_of

PUNCHES = "/v1/timekeeping/timecard/punches"
ME = "/v1/timekeeping/timecard/me"
PROVIDER = "provider@example.com"
MANAGER = "manager@example.com"
CARD = str(uid("timecard:provider"))


def _wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z")



def _punch(api: Any, provider: uuid.UUID, action: str, user: str = PROVIDER,
           **fields: Any) -> Any:
    return api.post(PUNCHES, user=user, json={"provider": str(provider), "action": action,
                                              **fields})


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _punch_ids(api: Any, provider: uuid.UUID) -> list[uuid.UUID]:
    with api.db.unit_of_work() as session:
        return list(session.scalars(select(m.TimecardPunch.id)
                                    .where(m.TimecardPunch.provider_id == provider)))


def _world_punch(api: Any, action: str, state: str = "approved") -> str:
    """The id of one of the world's punches on provider@example.com's March timecard."""
    with api.db.unit_of_work() as session:
        return str(session.scalars(select(m.TimecardPunch.id).where(
            m.TimecardPunch.timecard_id == uid("timecard:provider"),
            m.TimecardPunch.action == action, m.TimecardPunch.state == state)).first())


# Create ----------------------------------------------------------------------------------------


def test_create_punch_returns_201_with_location_and_pending_punch(fresh_api: Any, world: Any
                                                                  ) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    response = _punch(fresh_api, world.provider, "clock_in", providerNote="On time")
    body = _created(response)
    assert response.headers["Location"].endswith(f"{PUNCHES}/{body['id']}")
    assert body["providerId"] == str(world.provider)
    assert body["action"] == "clock_in"
    assert body["state"] == "pending"
    assert body["providerNote"] == "On time"
    assert body["adminNote"] is None
    assert body["generated"] is False
    assert before <= _parse(body["time"]) <= datetime.now(UTC) + timedelta(seconds=1)


def test_create_punch_creates_the_missing_timecard_once(fresh_api: Any, world: Any) -> None:
    first = _created(_punch(fresh_api, world.provider, "clock_in"))
    second = _created(_punch(fresh_api, world.provider, "break_start"))
    assert first["timecardId"] == second["timecardId"] != CARD
    with fresh_api.db.unit_of_work() as session:
        card = session.get(m.Timecard, uuid.UUID(first["timecardId"]))
        assert card is not None
        assert card.provider_id == world.provider
        assert card.period_start <= _parse(first["time"]) < card.period_end
        assert card.period_end - card.period_start >= timedelta(days=13, hours=23)


def test_create_punch_uses_the_stored_timecard_of_a_past_period(fresh_api: Any, world: Any
                                                                ) -> None:
    body = _created(_punch(fresh_api, world.provider, "clock_out", user=MANAGER,
                           time=_wire(START + timedelta(days=1, hours=9))))
    assert body["timecardId"] == CARD
    assert body["time"] == _wire(START + timedelta(days=1, hours=9))


def test_next_action_of_me_follows_new_punches(fresh_api: Any, world: Any) -> None:
    def next_action() -> list[str]:
        response = fresh_api.get(ME, user=PROVIDER)
        assert response.status_code == 200, response.get_json()
        return response.get_json()["nextAction"]

    assert next_action() == ["clock_in"]
    for action, expected in [("clock_in", ["clock_out", "break_start"]),
                             ("break_start", ["break_end"]),
                             ("break_end", ["clock_out", "break_start"]),
                             ("clock_out", ["clock_in"])]:
        _created(_punch(fresh_api, world.provider, action))
        assert next_action() == expected
    assert [p["action"] for p in fresh_api.get(ME, user=PROVIDER).get_json()["punches"]] == [
        "clock_in", "break_start", "break_end", "clock_out"]


@pytest.mark.parametrize(("history", "action", "allowed"), [
    ([], "clock_out", "clock_in"),
    ([], "break_end", "clock_in"),
    (["clock_in"], "clock_in", "clock_out, break_start"),
    (["clock_in", "break_start"], "clock_out", "break_end"),
])
def test_create_punch_rejects_action_not_allowed_next(fresh_api: Any, world: Any,
                                                      history: list[str], action: str,
                                                      allowed: str) -> None:
    for earlier in history:
        _created(_punch(fresh_api, world.provider, earlier))
    body = problem_of(_punch(fresh_api, world.provider, action), 400, "invalid-punch-action")
    assert f"the allowed actions are {allowed}." in body["detail"]
    assert len(_punch_ids(fresh_api, world.provider)) == 5 + len(history)


def test_create_punch_checks_the_punches_before_its_own_time(fresh_api: Any, world: Any) -> None:
    # Between the 2 March clock-in (11:56) and break (18:00): the provider was clocked in.
    between = _wire(START + timedelta(hours=2))
    body = problem_of(_punch(fresh_api, world.provider, "clock_in", user=MANAGER, time=between),
                    400, "invalid-punch-action")
    assert "the last punch before it is clock_in at 2026-03-02T11:56:00+0000" in body["detail"]
    assert _created(_punch(fresh_api, world.provider, "break_start", user=MANAGER,
                           time=between))["timecardId"] == CARD
    # Before the first punch of the period nothing was open.
    early = _wire(START - timedelta(days=2))
    problem_of(_punch(fresh_api, world.provider, "clock_out", user=MANAGER, time=early), 400,
             "invalid-punch-action")


def test_create_punch_ignores_rejected_punches(fresh_api: Any, world: Any) -> None:
    clock_in = _created(_punch(fresh_api, world.provider, "clock_in"))
    problem_of(_punch(fresh_api, world.provider, "clock_in"), 400, "invalid-punch-action")
    response = fresh_api.patch(f"{PUNCHES}/{clock_in['id']}", user=MANAGER,
                               json={"state": "rejected"})
    assert response.status_code == 200, response.get_json()
    _created(_punch(fresh_api, world.provider, "clock_in"))


def test_create_punch_accepts_a_time_slightly_ahead(fresh_api: Any, world: Any) -> None:
    ahead = datetime.now(UTC) + timedelta(minutes=3)
    assert _created(_punch(fresh_api, world.provider, "clock_in",
                           time=_wire(ahead)))["time"] == _wire(ahead)


def test_create_punch_rejects_time_far_ahead(fresh_api: Any, world: Any) -> None:
    ahead = datetime.now(UTC) + timedelta(minutes=6)
    body = problem_of(_punch(fresh_api, world.provider, "clock_in", time=_wire(ahead)), 400,
                    "validation")
    assert body["path"] == "/time"
    assert "5 minutes ahead" in body["message"]


@pytest.mark.parametrize(("fields", "path"), [
    ({"action": "clock_in"}, "/provider"),
    ({"provider": None}, "/action"),
    ({"provider": None, "action": 5}, "/action"),
    ({"provider": None, "action": None}, "/action"),
    ({"provider": "not-a-uuid", "action": "teleport"}, "/provider"),
    ({"provider": None, "action": "clock_in", "time": "yesterday"}, "/time"),
    ({"provider": None, "action": "clock_in", "time": "2026-03-02T12:00:00"}, "/time"),
    ({"provider": None, "action": "clock_in", "state": "signed"}, "/state"),
    ({"provider": None, "action": "clock_in", "providerNote": 5}, "/providerNote"),
    ({"provider": None, "action": "clock_in", "colour": "red"}, "/colour"),
    ({"provider": "not-a-uuid", "action": "clock_in"}, "/provider"),
    ({"provider": str(uid("user:nobody@example.com")), "action": "clock_in"}, "/provider"),
    ({"provider": str(uid("user:gone@example.com")), "action": "clock_in"}, "/provider"),
    ({"provider": None, "action": "clock_in", "time": "0001-01-01T00:00:00+0000"}, "/time"),
])
def test_create_punch_rejects_bad_body(api: Any, world: Any, fields: dict[str, Any],
                                       path: str) -> None:
    body = {k: (str(world.provider) if k == "provider" and v is None else v)
            for k, v in fields.items()}
    assert problem_of(api.post(PUNCHES, json=body), 400, "validation")["path"] == path


@pytest.mark.parametrize("action", ["teleport", "", "CLOCK_IN", "clock-in"])
@pytest.mark.parametrize("provider", ["provider", "nobody"])
def test_create_punch_answers_invalid_punch_action_for_an_unknown_action(
        api: Any, world: Any, action: str, provider: str) -> None:
    who = world.provider if provider == "provider" else uid("user:nobody@example.com")
    body = problem_of(api.post(PUNCHES, json={"provider": str(who), "action": action}), 400,
                    "invalid-punch-action")
    assert repr(action) in body["detail"]
    assert "clock_in, clock_out, break_start, break_end" in body["detail"]


def test_create_punch_refuses_another_providers_timecard(api: Any, world: Any) -> None:
    body = problem_of(_punch(api, world.doctor, "clock_in"), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("create", "Timecard")
    problem_of(_punch(api, world.provider, "clock_in", user="icu.manager@example.com"), 403,
             "unauthorized")
    problem_of(_punch(api, world.provider, "clock_in", user="scheduler@example.com"), 403,
             "unauthorized")


@pytest.mark.parametrize("fields", [{"state": "approved"}, {"state": "rejected"},
                                    {"adminNote": "fine"}])
def test_create_punch_refuses_review_fields_to_a_provider(api: Any, world: Any,
                                                          fields: dict[str, str]) -> None:
    body = problem_of(_punch(api, world.provider, "clock_in", **fields), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("approve", "Timecard")
    assert "adminNote" in body["detail"]


def test_create_punch_lets_a_manager_set_state_and_admin_note(fresh_api: Any, world: Any) -> None:
    body = _created(_punch(fresh_api, world.provider, "clock_in", user=MANAGER,
                           state="approved", adminNote="Badge reader down"))
    assert (body["state"], body["adminNote"]) == ("approved", "Badge reader down")
    assert _punch(fresh_api, world.provider, "clock_in", state="pending").status_code == 400


def _user_id(api: Any, email: str) -> str:
    return api.get("/v1/users/me", user=email).get_json()["id"]


def test_punches_name_who_recorded_and_who_last_reviewed_them(fresh_api: Any, world: Any
                                                             ) -> None:
    own = _created(_punch(fresh_api, world.provider, "clock_in"))
    added = _created(_punch(fresh_api, world.provider, "break_start", user=MANAGER,
                            state="approved", adminNote="Forgot to punch the break"))
    manager, provider = _user_id(fresh_api, MANAGER), _user_id(fresh_api, PROVIDER)
    assert (own["createdBy"], own["reviewedBy"]) == (provider, None)
    assert (added["createdBy"], added["reviewedBy"]) == (manager, None)
    reviewed = fresh_api.patch(f"{PUNCHES}/{own['id']}", user=MANAGER, json={"state": "approved"})
    assert reviewed.status_code == 200, reviewed.get_json()
    assert (reviewed.get_json()["createdBy"], reviewed.get_json()["reviewedBy"]) == (
        provider, manager)
    # the timesheet's punches say the same
    day = _parse(own["time"]).replace(hour=0, minute=0, second=0)
    sheet = fresh_api.get("/v1/timekeeping/timesheet", user=MANAGER, query_string={
        "team": str(world.ed), "startDate": _wire(day - timedelta(days=1)),
        "endDate": _wire(day + timedelta(days=2))}).get_json()
    authors = {p["id"]: (p["createdBy"], p["reviewedBy"])
               for s in sheet["items"] for p in s["punches"]}
    assert authors[own["id"]] == (provider, manager)
    assert authors[added["id"]] == (manager, None)


def test_create_punch_accepts_explicit_pending_state_from_a_provider(fresh_api: Any, world: Any
                                                                     ) -> None:
    assert _created(_punch(fresh_api, world.provider, "clock_in", state="pending",
                           adminNote=None))["state"] == "pending"


# Concurrency -----------------------------------------------------------------------------------


@pytest.mark.parametrize("clicks", [2, 5])
def test_create_punch_records_one_of_simultaneous_clock_ins(fresh_api: Any, world: Any,
                                                            clicks: int) -> None:
    body = {"provider": str(world.provider), "action": "clock_in"}
    responses = fresh_api.race([("POST", PUNCHES, PROVIDER, body)] * clicks)
    results = [(r.status_code, r.get_json()) for r in responses]
    assert sorted(status for status, _ in results) == [201] + [400] * (clicks - 1)
    assert all(body["type"].endswith("#invalid-punch-action")
               for status, body in results if status == 400)
    with fresh_api.db.unit_of_work() as session:
        recent = session.scalar(select(func.count()).select_from(m.TimecardPunch).where(
            m.TimecardPunch.provider_id == world.provider,
            m.TimecardPunch.time > START + timedelta(days=30)))
        cards = session.scalar(select(func.count()).select_from(m.Timecard).where(
            m.Timecard.provider_id == world.provider))
    assert recent == 1
    assert cards == 2


def test_create_timecard_returns_the_card_another_transaction_created(fresh_api: Any,
                                                                      world: Any) -> None:
    period = Interval(datetime(2026, 3, 9, 4, tzinfo=UTC), datetime(2026, 3, 23, 4, tzinfo=UTC))
    with fresh_api.db.unit_of_work(write=True) as session:
        winner = create_timecard(session, provider_id=world.provider, period=period)
    with fresh_api.db.unit_of_work(write=True) as session:
        loser = create_timecard(session, provider_id=world.provider, period=period)
        assert loser.id == winner.id
        # The session stays usable after the lost race.
        assert session.get(m.Timecard, uid("timecard:provider")) is not None
    with fresh_api.db.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(m.Timecard).where(
            m.Timecard.provider_id == world.provider)) == 2


# Review (PATCH, extension) ---------------------------------------------------------------------


def test_update_punch_sets_state_and_admin_note(fresh_api: Any, world: Any) -> None:
    punch = _created(_punch(fresh_api, world.provider, "clock_in"))
    response = fresh_api.patch(f"{PUNCHES}/{punch['id']}", user=MANAGER,
                               json={"state": "approved", "adminNote": "Checked"})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["state"], body["adminNote"], body["time"]) == ("approved", "Checked",
                                                                 punch["time"])
    cleared = fresh_api.patch(f"{PUNCHES}/{punch['id']}", user=MANAGER,
                              json={"adminNote": None}).get_json()
    assert (cleared["state"], cleared["adminNote"]) == ("approved", None)


def test_update_punch_corrects_time_inside_its_period(fresh_api: Any, world: Any) -> None:
    punch = _world_punch(fresh_api, "clock_in", "pending")
    corrected = _wire(START + timedelta(days=1, minutes=2))
    response = fresh_api.patch(f"{PUNCHES}/{punch}", user=MANAGER, json={"time": corrected})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["time"] == corrected
    assert response.get_json()["state"] == "pending"


@pytest.mark.parametrize("moment", [datetime(2026, 3, 9, 4, tzinfo=UTC),
                                    datetime(2026, 2, 23, 4, 59, tzinfo=UTC)])
def test_update_punch_refuses_time_outside_its_period(api: Any, moment: datetime) -> None:
    punch = _world_punch(api, "clock_in", "pending")
    body = problem_of(api.patch(f"{PUNCHES}/{punch}", user=MANAGER, json={"time": _wire(moment)}),
                    400, "validation")
    assert body["path"] == "/time"
    assert "2026-02-23T05:00:00+0000 to 2026-03-09T04:00:00+0000" in body["message"]


def test_update_punch_refuses_time_far_ahead(fresh_api: Any, world: Any) -> None:
    punch = _created(_punch(fresh_api, world.provider, "clock_in"))
    ahead = _wire(datetime.now(UTC) + timedelta(minutes=10))
    assert problem_of(fresh_api.patch(f"{PUNCHES}/{punch['id']}", user=MANAGER,
                                    json={"time": ahead}), 400, "validation")["path"] == "/time"


@pytest.mark.parametrize(("user", "fields", "action"), [
    (PROVIDER, {"state": "approved"}, "approve"),
    (PROVIDER, {"adminNote": "mine"}, "edit"),
    (PROVIDER, {"time": "2026-03-03T12:00:00+0000"}, "edit"),
    ("icu.manager@example.com", {"state": "approved"}, "approve"),
    ("scheduler@example.com", {"adminNote": "x"}, "edit"),
])
def test_update_punch_refuses_callers_without_permission(api: Any, user: str,
                                                         fields: dict[str, str],
                                                         action: str) -> None:
    punch = _world_punch(api, "clock_in", "pending")
    body = problem_of(api.patch(f"{PUNCHES}/{punch}", user=user, json=fields), 403,
                    "unauthorized")
    assert (body["action"], body["resource"]) == (action, "Timecard")


@pytest.mark.parametrize(("fields", "path"), [({"state": None}, "/state"),
                                              ({"state": "done"}, "/state"),
                                              ({"time": None}, "/time"),
                                              ({"version": 1}, "/version")])
def test_update_punch_rejects_bad_body(api: Any, fields: dict[str, Any], path: str) -> None:
    punch = _world_punch(api, "clock_in", "pending")
    body = problem_of(api.patch(f"{PUNCHES}/{punch}", user=MANAGER, json=fields), 400, "validation")
    assert body["path"] == path


def test_update_punch_answers_404_for_unknown_punch(api: Any) -> None:
    problem_of(api.patch(f"{PUNCHES}/{uuid.uuid4()}", json={"state": "approved"}), 404,
             "timecard-punch-not-found")


# Delete ----------------------------------------------------------------------------------------


def test_delete_punch_lets_a_provider_withdraw_their_pending_punch(fresh_api: Any, world: Any
                                                                   ) -> None:
    _created(_punch(fresh_api, world.provider, "clock_in"))
    second = _created(_punch(fresh_api, world.provider, "break_start"))
    response = fresh_api.delete(f"{PUNCHES}/{second['id']}", user=PROVIDER)
    assert response.status_code == 204
    assert response.get_data() == b""
    me = fresh_api.get(ME, user=PROVIDER).get_json()
    assert [p["action"] for p in me["punches"]] == ["clock_in"]
    assert me["nextAction"] == ["clock_out", "break_start"]
    problem_of(fresh_api.delete(f"{PUNCHES}/{second['id']}", user=PROVIDER), 404,
             "timecard-punch-not-found")


def test_delete_punch_refuses_a_provider_their_reviewed_punch(api: Any) -> None:
    punch = _world_punch(api, "clock_out", "approved")
    body = problem_of(api.delete(f"{PUNCHES}/{punch}", user=PROVIDER), 403, "unauthorized")
    assert "already approved" in body["detail"]


@pytest.mark.parametrize("user", ["doctor@example.com", "icu.manager@example.com",
                                  "scheduler@example.com"])
def test_delete_punch_refuses_someone_elses_punch(api: Any, user: str) -> None:
    punch = _world_punch(api, "clock_in", "pending")
    body = problem_of(api.delete(f"{PUNCHES}/{punch}", user=user), 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("edit", "Timecard")


def test_delete_punch_lets_a_manager_delete_any_punch_and_recomputes_next(fresh_api: Any,
                                                                          world: Any) -> None:
    pending = _world_punch(fresh_api, "clock_in", "pending")
    assert fresh_api.delete(f"{PUNCHES}/{pending}", user=MANAGER).status_code == 204
    timecard = fresh_api.get(f"/v1/timekeeping/timecard/{world.provider}", user=MANAGER,
                             query_string={"startDate": _wire(START)}).get_json()
    assert timecard["nextActions"] == ["clock_in"]
    clock_out = _world_punch(fresh_api, "clock_out", "approved")
    assert fresh_api.delete(f"{PUNCHES}/{clock_out}", user=MANAGER).status_code == 204
    timecard = fresh_api.get(f"/v1/timekeeping/timecard/{world.provider}", user=MANAGER,
                             query_string={"startDate": _wire(START)}).get_json()
    assert [p["action"] for p in timecard["punches"]] == ["clock_in", "break_start", "break_end"]
    assert timecard["nextActions"] == ["clock_out", "break_start"]


def test_delete_punch_answers_404_and_400_for_bad_ids(api: Any) -> None:
    problem_of(api.delete(f"{PUNCHES}/{uuid.uuid4()}"), 404, "timecard-punch-not-found")
    assert problem_of(api.delete(f"{PUNCHES}/not-a-uuid"), 400, "validation")["path"] == "punchId"


def test_an_empty_review_shows_the_punch_only_to_who_may_review_it(api: Any) -> None:
    punch = _world_punch(api, "clock_in", "pending")
    for user in (PROVIDER, "icu.manager@example.com", "scheduler@example.com"):
        body = problem_of(api.patch(f"{PUNCHES}/{punch}", user=user, json={}), 403,
                        "unauthorized")
        assert (body["action"], body["resource"]) == ("edit", "Timecard")
        assert "time" not in body
    assert api.patch(f"{PUNCHES}/{punch}", user="manager@example.com", json={}).status_code == 200
