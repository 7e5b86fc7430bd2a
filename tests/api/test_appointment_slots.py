"""Appointment slot search through /v1 on both backends: candidates, busy time, order, problems,
permissions and the statement count."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.api import models as m
from tests.factories import START, make_shift, uid

SLOTS = "/v1/appointments/slots"
NEW_PATIENT = str(uid("atype:new"))
FOLLOW_UP = str(uid("atype:follow"))
RETIRED = str(uid("atype:old"))
DOCTOR = str(uid("user:doctor@example.com"))
NURSE = str(uid("user:provider@example.com"))
SCHEDULER = "scheduler@example.com"
NEW_YORK = ZoneInfo("America/New_York")

# build_world: every provider works 12:00-24:00 UTC on each of 10 days from START with an unpaid
# break 18:00-18:30; the doctor (ED Physician, speaks French) has appointment i on day i % 10 at
# 13:00 + i // 10 hours UTC for 30 minutes, and appointment 7 (day 7, 13:00) is cancelled.


def wire(value: datetime) -> str:
    """A datetime as the API writes it."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def parse(value: str) -> datetime:
    """A wire timestamp as a datetime."""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z")


def search(api: Any, type_id: str = NEW_PATIENT, start: datetime = START,
           end: datetime | None = None, user: str = SCHEDULER, **extra: Any) -> Any:
    """POST a slot search."""
    body = {"appointmentTypeId": type_id, "startDate": wire(start),
            "endDate": wire(end or start + timedelta(hours=12)), **extra}
    return api.post(SLOTS, json=body, user=user)


def results(response: Any) -> list[dict[str, Any]]:
    """The slots of a successful search."""
    assert response.status_code == 200, response.get_json()
    return response.get_json()["results"]


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def doctor_busy() -> list[tuple[datetime, datetime]]:
    """The doctor's live appointments and breaks in build_world."""
    busy = []
    for index in range(25):
        begin = START + timedelta(days=index % 10, hours=1 + index // 10)
        if index != 7:
            busy.append((begin, begin + timedelta(minutes=30)))
    for day in range(10):
        pause = START + timedelta(days=day, hours=6)
        busy.append((pause, pause + timedelta(minutes=30)))
    return busy


# Candidates and busy time -----------------------------------------------------------------------


def test_search_slots_offers_only_the_french_speaking_physician_for_a_new_patient_visit(api):
    slots = results(search(api, end=START + timedelta(days=3), limit=200))
    assert slots
    assert {s["providerId"] for s in slots} == {DOCTOR}
    assert {s["appointmentTypeId"] for s in slots} == {NEW_PATIENT}
    for slot in slots:
        start, end = parse(slot["startDate"]), parse(slot["endDate"])
        assert end - start == timedelta(minutes=30)
        assert start.astimezone(NEW_YORK).minute % 15 == 0
        assert start >= START
        assert end <= START + timedelta(days=3)
        assert not any(start < b_end and b_start < end for b_start, b_end in doctor_busy()), slot


def test_search_slots_fills_the_gaps_between_appointments(api):
    slots = results(search(api, end=START + timedelta(hours=4), limit=200))
    starts = sorted(parse(s["startDate"]) - START for s in slots)
    assert starts == [timedelta(minutes=n) for n in (0, 15, 30, 90, 150, 210)]


def test_search_slots_frees_the_time_of_a_cancelled_appointment(api):
    day = START + timedelta(days=7)
    slots = results(search(api, start=day + timedelta(hours=1), end=day + timedelta(hours=2),
                           limit=200))
    assert [parse(s["startDate"]) for s in slots] == [day + timedelta(hours=1, minutes=m)
                                                     for m in (0, 15, 30)]


def test_search_slots_skips_callout_and_on_call_shifts(api):
    # day 11: the nurse's callout shift; day 12: the doctor's on-call shift; nothing else then.
    start = START + timedelta(days=11)
    assert results(search(api, FOLLOW_UP, start=start, end=start + timedelta(days=2))) == []


def test_search_slots_follows_a_shift_given_to_someone_else(fresh_api, world):
    day = START + timedelta(days=30)
    with fresh_api.db.unit_of_work(write=True) as s:
        shift = make_shift(s, provider=s.get(m.Provider, world.provider),
                           team=s.get(m.Team, world.ed), role=s.get(m.Role, world.ed_nurse_role),
                           start=day, break_at=None)
        s.flush()
        path = f"/v1/shifts/{shift.id}"

    def who_is_offered() -> set[str]:
        slots = results(search(fresh_api, FOLLOW_UP, start=day, end=day + timedelta(hours=4),
                               limit=200))
        return {slot["providerId"] for slot in slots}

    def change(**body: Any) -> None:
        response = fresh_api.patch(path, user="manager@example.com", json=body)
        assert response.status_code == 200, response.get_json()

    assert who_is_offered() == {NURSE}
    change(provider=DOCTOR)
    assert who_is_offered() == {DOCTOR}
    change(provider=None)  # an open shift offers no one
    assert who_is_offered() == set()
    change(provider=NURSE, isCallout=True)  # nor does a shift its provider called out of
    assert who_is_offered() == set()
    change(isCallout=False)
    assert who_is_offered() == {NURSE}


def test_search_slots_blocks_approved_time_off(fresh_api, world):
    day = START + timedelta(days=30)
    with fresh_api.db.unit_of_work(write=True) as s:
        ed = s.get(m.Team, world.ed)
        nurse = s.get(m.Provider, world.provider)
        role = s.get(m.Role, world.ed_nurse_role)
        make_shift(s, provider=nurse, team=ed, role=role, start=day, break_at=None)
        for status, hours in (("approved", 2), ("pending", 4), ("rejected", 6)):
            s.add(m.TimeOffRequest(
                status=status, start_date=day + timedelta(hours=hours),
                end_date=day + timedelta(hours=hours + 1), policy_id=uid("policy:pto"),
                provider_id=world.provider, is_full_day=False, paid_hours=1.0))
    slots = results(search(fresh_api, FOLLOW_UP, start=day, end=day + timedelta(hours=8),
                           limit=200))
    starts = {parse(s["startDate"]) - day for s in slots}
    assert {s["providerId"] for s in slots} == {NURSE}
    assert timedelta(hours=2) not in starts
    assert timedelta(hours=2, minutes=45) not in starts
    assert {timedelta(hours=1, minutes=45), timedelta(hours=3), timedelta(hours=4),
            timedelta(hours=6)} <= starts


def test_search_slots_blocks_whole_local_days_of_full_day_time_off(fresh_api, world):
    day = START + timedelta(days=30)  # 2026-04-01 12:00 UTC = 08:00 in New York
    with fresh_api.db.unit_of_work(write=True) as s:
        ed = s.get(m.Team, world.ed)
        nurse = s.get(m.Provider, world.provider)
        role = s.get(m.Role, world.ed_nurse_role)
        make_shift(s, provider=nurse, team=ed, role=role, start=day, break_at=None)
        request = m.TimeOffRequest(
            status="approved", start_date=day + timedelta(hours=1),
            end_date=day + timedelta(hours=2), policy_id=uid("policy:pto"),
            provider_id=world.provider, is_full_day=True, paid_hours=8.0)
        request.daily_hours = [m.TimeOffDay(date=datetime(2026, 4, 1, tzinfo=UTC), duration=8)]
        s.add(request)
    slots = results(search(fresh_api, FOLLOW_UP, start=day, end=day + timedelta(hours=12),
                           limit=200))
    # The New York day ends at 04:00 UTC on April 2, after the shift: nothing is left.
    assert slots == []


def test_search_slots_reads_every_day_of_a_long_window(fresh_api, world):
    # Nothing free until the second day, one shift running over midnight into the third, and one
    # more on the eleventh: every slot of both is offered (PostgreSQL reads the window in spans
    # of 1, 1, 2, 4 and 6 days, whose edges these cross).
    day = START + timedelta(days=30)
    with fresh_api.db.unit_of_work(write=True) as s:
        ed = s.get(m.Team, world.ed)
        nurse = s.get(m.Provider, world.provider)
        role = s.get(m.Role, world.ed_nurse_role)
        for start, hours in ((day + timedelta(days=1, hours=22), 4),
                             (day + timedelta(days=10), 2)):
            make_shift(s, provider=nurse, team=ed, role=role, start=start, hours=hours,
                       break_at=None)
    response = search(fresh_api, FOLLOW_UP, start=day, end=day + timedelta(days=14), limit=200,
                      requirements={"providerIds": [NURSE]})
    starts = sorted(parse(slot["startDate"]) for slot in results(response))
    expected = sorted(
        [day + timedelta(days=1, hours=22, minutes=15 * n) for n in range(16)]
        + [day + timedelta(days=10, minutes=15 * n) for n in range(8)])
    assert starts == expected


# Requirements, preferences and order ------------------------------------------------------------


def test_search_slots_offers_any_role_for_a_follow_up(api):
    slots = results(search(api, FOLLOW_UP, limit=200))
    assert len({s["providerId"] for s in slots}) == 8
    assert all(parse(s["endDate"]) - parse(s["startDate"]) == timedelta(minutes=15)
               for s in slots)


def test_search_slots_returns_ten_best_first_by_default(api):
    slots = results(search(api, FOLLOW_UP))
    assert len(slots) == 10
    keys = [(-s["score"], s["startDate"], s["providerId"]) for s in slots]
    assert keys == sorted(keys)


def test_search_slots_answers_the_same_twice(api):
    assert results(search(api, FOLLOW_UP, limit=50)) == results(search(api, FOLLOW_UP, limit=50))


def test_search_slots_restricts_to_required_providers(api):
    slots = results(search(api, FOLLOW_UP, limit=200, requirements={"providerIds": [NURSE]}))
    assert slots
    assert {s["providerId"] for s in slots} == {NURSE}


def test_search_slots_finds_nobody_when_required_providers_are_empty(api):
    assert results(search(api, FOLLOW_UP, requirements={"providerIds": []})) == []


def test_search_slots_restricts_to_required_skills(api):
    spanish = {"type": "equal", "skill": "language", "value": "Spanish"}
    slots = results(search(api, FOLLOW_UP, limit=200, requirements={"skill": spanish}))
    assert slots
    assert {s["providerId"] for s in slots} == {NURSE}


def test_search_slots_matches_licensed_regions_as_skills(api):
    region = {"type": "or", "entries": [{"type": "equal", "skill": "licensed_region",
                                         "value": "NY"}]}
    everyone = results(search(api, FOLLOW_UP, limit=200, requirements={"skill": region}))
    assert len({s["providerId"] for s in everyone}) == 8
    region["entries"][0]["value"] = "CA"
    assert results(search(api, FOLLOW_UP, requirements={"skill": region})) == []


def test_search_slots_ranks_preferred_providers_first(api):
    slots = results(search(api, FOLLOW_UP, limit=5, preferences={"providerIds": [NURSE]}))
    assert {s["providerId"] for s in slots} == {NURSE}
    skill = {"type": "equal", "skill": "certification", "value": "ACLS"}
    assert {s["providerId"] for s in results(search(
        api, FOLLOW_UP, limit=5, preferences={"skill": skill}))} == {NURSE}


def test_search_slots_ranks_less_loaded_providers_first_at_equal_times(api):
    # All eight start at START; the doctor has three appointments that day, the others none.
    slots = results(search(api, FOLLOW_UP, limit=7))
    assert {s["startDate"] for s in slots} == {wire(START)}
    assert len({s["providerId"] for s in slots}) == 7
    assert DOCTOR not in {s["providerId"] for s in slots}


# Problems and permissions -----------------------------------------------------------------------


def test_search_slots_refuses_an_archived_type(api):
    response = search(api, RETIRED)
    assert response.status_code == 404
    assert problem_code(response) == "appointment-type-not-found"


def test_search_slots_refuses_an_unknown_type(api):
    for type_id in (str(uid("atype:nope")), "not-a-uuid"):
        response = search(api, type_id)
        assert response.status_code == 404, type_id
        assert problem_code(response) == "appointment-type-not-found"


def test_search_slots_refuses_an_end_before_the_start(api):
    response = search(api, end=START)
    assert response.status_code == 400
    assert problem_code(response) == "negative-range"
    assert response.get_json()["path"] == "/endDate"


def test_search_slots_refuses_a_window_over_62_days(api):
    response = search(api, end=START + timedelta(days=62, minutes=1))
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "/endDate"
    assert search(api, end=START + timedelta(days=62)).status_code == 200


def test_search_slots_refuses_bad_bodies_with_validation(api):
    for body, path in (({"startDate": wire(START)}, "/appointmentTypeId"),
                       ({"appointmentTypeId": NEW_PATIENT, "startDate": "soon",
                         "endDate": wire(START)}, "/startDate"),
                       ({"appointmentTypeId": NEW_PATIENT, "startDate": wire(START),
                         "endDate": wire(START + timedelta(hours=1)), "limit": 0}, "/limit")):
        response = api.post(SLOTS, json=body, user=SCHEDULER)
        assert response.status_code == 400, body
        assert problem_code(response) == "validation"
        assert response.get_json()["path"] == path


def test_search_slots_refuses_providers_and_managers(api):
    for user in ("provider@example.com", "manager@example.com"):
        response = search(api, user=user)
        assert response.status_code == 403, user
        assert problem_code(response) == "unauthorized"


def test_search_slots_allows_schedulers_and_admins(api):
    for user in (SCHEDULER, "admin@example.com"):
        assert results(search(api, user=user)), user


def test_get_appointment_still_matches_its_rule_beside_slots(api):
    response = api.get(f"/v1/appointments/{uid('appt:0')}")
    assert response.status_code == 200
    assert api.get(SLOTS).status_code in (400, 405)


# Statements -------------------------------------------------------------------------------------

_SLOT_TABLES = ("appointment_types", "shift_segments", "appointments", "time_off_requests")


def test_search_slots_issues_three_statements_whatever_the_window(api):
    results(search(api, FOLLOW_UP))  # warm up: a new pooled connection may run setup SQL
    counts = []
    for days in (1, 14):
        with api.count_queries() as statements:
            results(search(api, FOLLOW_UP, end=START + timedelta(days=days), limit=200))
        own = [s for s in statements if any(table in s for table in _SLOT_TABLES)]
        assert len(own) <= 3, own
        counts.append((len(statements), len(own)))
    assert counts[0] == counts[1], statements


# Daylight saving time ---------------------------------------------------------------------------


def test_search_slots_keeps_the_local_grid_across_the_fall_back(fresh_api, world):
    start = datetime(2026, 11, 1, 4, 0, tzinfo=UTC)  # Nov 1, 00:00 EDT; 01:00 comes twice
    with fresh_api.db.unit_of_work(write=True) as s:
        ed = s.get(m.Team, world.ed)
        doctor = s.get(m.Provider, world.doctor)
        role = s.get(m.Role, world.ed_doctor_role)
        make_shift(s, provider=doctor, team=ed, role=role, start=start, hours=6, break_at=None)
    slots = results(search(fresh_api, start=start, end=start + timedelta(hours=6), limit=200))
    starts = [parse(s["startDate"]) for s in slots]
    assert len(starts) == 6 * 4 - 1  # 30-minute visits every 15 minutes of 6 elapsed hours
    assert all(parse(s["endDate"]) - parse(s["startDate"]) == timedelta(minutes=30)
               for s in slots)
    assert all(t.astimezone(NEW_YORK).minute % 15 == 0 for t in starts)
    local = [t.astimezone(NEW_YORK).strftime("%H:%M%z") for t in sorted(starts)]
    assert "01:00-0400" in local
    assert "01:00-0500" in local
