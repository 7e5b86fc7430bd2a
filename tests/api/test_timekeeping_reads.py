"""Reading timekeeping: GET /v1/timekeeping/timecard/{provider}, /timecard/me and /timesheet.

The shared world punched provider@example.com in on 2026-03-02 4 minutes early, took the
scheduled 30-minute break and punched out 2 minutes late (all within the 7-minute grace), then
punched in 25 minutes late on 2026-03-03 (pending) and never out. The real clock is read by the
API, so these tests only rely on "now" being after March 2026, or build data around now.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from app.api import models as m
from app.api.domain.timecards import parse_pay_period_template, pay_period_containing
from app.contract.timekeeping import TimesheetPage, TimesheetRead
from tests.factories import START, make_shift, uid
from tests.problems import problem_of

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
PUNCH_KEYS = {"id", "timecardId", "providerId", "generated", "createdAt", "updatedAt", "action",
              "state", "time", "providerNote", "adminNote", "createdBy", "reviewedBy"}
SHEET_PUNCH_KEYS = PUNCH_KEYS | {"shiftId", "roundedTime"}
SHEET_KEYS = {"providerId", "startDate", "endDate", "punches", "warnings", "errors",
              "payCodeTotals", "paySegments", "weeks", "overtimeStartsAt"}
REG = str(uid("pay:REG"))
ED_RN = str(uid("role:Emergency:Registered Nurse"))
CARD = str(uid("timecard:provider"))
ICU_CARD = str(uid("timecard:icu"))
TWO_DAYS = {"startDate": "2026-03-02T05:00:00+0000", "endDate": "2026-03-04T05:00:00+0000"}
FIRST_DAY = {"startDate": "2026-03-02T05:00:00+0000", "endDate": "2026-03-03T05:00:00+0000"}
ED_NAMES = ["Dana Doctor", "Ed Nurse 1", "Ed Nurse 2", "Ed Nurse 3", "Gone Away", "Pat Provider"]


def _wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")



def _shift_id(api: Any, provider: uuid.UUID, start: datetime) -> str:
    """The id of a world shift, read straight from the database."""
    with api.db.unit_of_work() as session:
        return str(session.scalars(select(m.Shift.id).where(
            m.Shift.provider_id == provider, m.Shift.start_date == start)).one())


def _timecard(api: Any, provider: uuid.UUID, user: str = "admin@example.com",
              **query: Any) -> Any:
    return api.get(f"/v1/timekeeping/timecard/{provider}", user=user, query_string=query)


def _sheet(api: Any, user: str = "admin@example.com", **query: Any) -> Any:
    return api.get("/v1/timekeeping/timesheet", user=user, query_string=query)


# GET /v1/timekeeping/timecard/{provider} -----------------------------------------------------


def test_get_timecard_returns_period_punches_and_next_actions_when_start_date_given(api, world):
    response = _timecard(api, world.provider, user="provider@example.com",
                         startDate="2026-03-03T12:00:00+0000")

    assert response.status_code == 200, response.get_json()
    card = response.get_json()
    assert set(card) == {"punches", "nextActions"}
    assert [(p["action"], p["state"], p["time"]) for p in card["punches"]] == [
        ("clock_in", "approved", "2026-03-02T11:56:00+0000"),
        ("break_start", "approved", "2026-03-02T18:00:00+0000"),
        ("break_end", "approved", "2026-03-02T18:30:00+0000"),
        ("clock_out", "approved", "2026-03-03T00:02:00+0000"),
        ("clock_in", "pending", "2026-03-03T12:25:00+0000"),
    ]
    first = card["punches"][0]
    assert set(first) == PUNCH_KEYS
    assert first["timecardId"] == CARD
    assert first["providerId"] == str(world.provider)
    assert first["generated"] is False
    assert TIMESTAMP.match(first["createdAt"])
    assert TIMESTAMP.match(first["updatedAt"])
    assert card["nextActions"] == ["clock_out", "break_start"]


def test_get_timecard_shows_empty_current_period_with_clock_in_next(api, world):
    response = _timecard(api, world.provider, user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"punches": [], "nextActions": ["clock_in"]}


def test_get_timecard_forbids_provider_reading_another_providers_card(api, world):
    body = problem_of(_timecard(api, world.icu_nurse, user="provider@example.com"), 403,
                    "unauthorized")
    assert body["action"] == "view"
    assert body["resource"] == "Timecard"


def test_get_timecard_lets_manager_read_own_team_only(api, world):
    ok = _timecard(api, world.provider, user="manager@example.com",
                   startDate="2026-03-02T12:00:00Z")
    assert ok.status_code == 200, ok.get_json()
    assert len(ok.get_json()["punches"]) == 5
    problem_of(_timecard(api, world.icu_nurse, user="manager@example.com"), 403, "unauthorized")


def test_get_timecard_answers_not_found_and_validation(api, world):
    body = problem_of(_timecard(api, uuid.uuid4()), 404, "provider-not-found")
    assert "does not exist" in body["detail"]
    assert problem_of(api.get("/v1/timekeeping/timecard/not-a-uuid"), 400,
                    "validation")["path"] == "provider"
    assert problem_of(_timecard(api, world.provider, startDate="yesterday"), 400,
                    "validation")["path"] == "startDate"
    assert problem_of(_timecard(api, world.provider, startDate="9999-12-31T23:00:00Z"), 400,
                    "validation")["path"] == "startDate"


def test_get_timecard_answers_pay_period_not_found_without_template(fresh_api, world):
    nurse = uid("user:ed.nurse1@example.com")
    with fresh_api.db.unit_of_work(write=True) as session:
        session.get(m.Provider, nurse).pay_period_template = None

    body = problem_of(_timecard(fresh_api, nurse), 404, "pay-period-not-found")
    assert "pay period template" in body["detail"]
    problem_of(_timecard(fresh_api, nurse, user="provider@example.com"), 403, "unauthorized")


def test_get_timecard_carries_open_clock_in_across_period_boundary(fresh_api, world):
    card = uid("timecard:provider")
    with fresh_api.db.unit_of_work(write=True) as session:
        session.add(m.TimecardPunch(timecard_id=card, provider_id=world.provider,
                                    action="clock_out", state="approved",
                                    time=datetime(2026, 3, 3, 23, tzinfo=UTC)))
        session.add(m.TimecardPunch(timecard_id=card, provider_id=world.provider,
                                    action="clock_in", state="approved",
                                    time=datetime(2026, 3, 9, 2, tzinfo=UTC)))

    next_period = _timecard(fresh_api, world.provider, startDate="2026-03-09T12:00:00+0000")
    assert next_period.get_json() == {"punches": [], "nextActions": ["clock_out", "break_start"]}
    later = _timecard(fresh_api, world.provider, startDate="2026-03-24T12:00:00+0000")
    assert later.get_json() == {"punches": [], "nextActions": ["clock_in"]}


# GET /v1/timekeeping/timecard/me -------------------------------------------------------------


def test_get_my_timecard_answers_provider_not_found_for_non_provider(api):
    body = problem_of(api.get("/v1/timekeeping/timecard/me", user="scheduler@example.com"), 404,
                    "provider-not-found")
    assert "scheduler@example.com is not a provider" in body["detail"]


def test_get_my_timecard_shows_clock_in_and_no_shifts_when_none_around_now(api):
    response = api.get("/v1/timekeeping/timecard/me", user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"punches": [], "nextAction": ["clock_in"]}


def test_get_my_timecard_shows_punches_current_and_next_shift(fresh_api, world):
    now = datetime.now(UTC).replace(microsecond=0)
    with fresh_api.db.unit_of_work(write=True) as session:
        provider = session.get(m.Provider, world.provider)
        team, role = session.get(m.Team, world.ed), session.get(m.Role, world.ed_nurse_role)
        shape = {"provider": provider, "team": team, "role": role, "break_at": None}
        make_shift(session, start=now - timedelta(hours=20), hours=8, **shape)
        current = make_shift(session, start=now - timedelta(hours=1), hours=8, **shape)
        make_shift(session, start=now - timedelta(hours=2), hours=10, is_callout=True, **shape)
        upcoming = make_shift(session, start=now + timedelta(days=1), hours=12, **shape)
        upcoming.segments[0].type, upcoming.segments[0].is_on_call = "on_call", True
        zone = fresh_api.settings.zone
        period = pay_period_containing(
            parse_pay_period_template(provider.pay_period_template, zone), now, zone)
        card = m.Timecard(provider_id=provider.id, period_start=period.start,
                          period_end=period.end)
        session.add(card)
        session.flush()
        session.add(m.TimecardPunch(timecard_id=card.id, provider_id=provider.id,
                                    action="clock_in", time=max(period.start,
                                                                now - timedelta(minutes=55))))
        session.flush()
        current_id, upcoming_id = str(current.id), str(upcoming.id)

    response = fresh_api.get("/v1/timekeeping/timecard/me", user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    me = response.get_json()
    assert [p["action"] for p in me["punches"]] == ["clock_in"]
    assert me["nextAction"] == ["clock_out", "break_start"]
    assert me["currentShift"] == {"id": current_id, "startDate": _wire(now - timedelta(hours=1)),
                                  "endDate": _wire(now + timedelta(hours=7)), "onCall": False}
    assert me["nextShift"] == {"id": upcoming_id, "startDate": _wire(now + timedelta(days=1)),
                               "endDate": _wire(now + timedelta(days=1, hours=12)),
                               "onCall": True}


# GET /v1/timekeeping/timesheet ---------------------------------------------------------------


def test_get_timesheet_reports_exact_minutes_late_clock_in_and_missing_clock_out(api, world):
    response = _sheet(api, user="provider@example.com", provider=str(world.provider), **TWO_DAYS)

    assert response.status_code == 200, response.get_json()
    sheet = response.get_json()
    assert set(sheet) == SHEET_KEYS
    assert sheet["providerId"] == str(world.provider)
    assert (sheet["startDate"], sheet["endDate"]) == (TWO_DAYS["startDate"], TWO_DAYS["endDate"])
    late = sheet["punches"][-1]
    assert (late["action"], late["state"], late["time"]) == \
        ("clock_in", "pending", "2026-03-03T12:25:00+0000")
    assert len(sheet["punches"]) == 5
    assert sheet["warnings"] == [{"type": "clock_in_late", "punchId": late["id"]}]
    second_day = _shift_id(api, world.provider, START + timedelta(days=1))
    assert sheet["errors"] == [{"type": "no_clock_out", "shiftId": second_day, "timecardId": CARD}]
    assert sheet["payCodeTotals"] == [
        {"payCodeId": REG, "roleId": ED_RN, "scheduled": 2 * 690, "actual": 696}
    ]


def test_get_timesheet_shows_no_warnings_within_grace_and_exact_pay_segments(api, world):
    response = _sheet(api, user="manager@example.com", provider=str(world.provider), **FIRST_DAY)

    assert response.status_code == 200, response.get_json()
    sheet = response.get_json()
    assert sheet["warnings"] == []
    assert sheet["errors"] == []
    assert [p["action"] for p in sheet["punches"]] == ["clock_in", "break_start", "break_end",
                                                       "clock_out"]
    assert sheet["payCodeTotals"] == [
        {"payCodeId": REG, "roleId": ED_RN, "scheduled": 690, "actual": 696}
    ]
    first_day = _shift_id(api, world.provider, START)
    assert [(s["type"], s["startDate"], s["endDate"], s["payCodes"], s["role"])
            for s in sheet["paySegments"]] == [
        ("working", "2026-03-02T11:56:00+0000", "2026-03-02T18:00:00+0000", [REG], ED_RN),
        ("unpaid_break", "2026-03-02T18:00:00+0000", "2026-03-02T18:30:00+0000", [], None),
        ("working", "2026-03-02T18:30:00+0000", "2026-03-03T00:02:00+0000", [REG], ED_RN),
    ]
    assert {(s["shiftId"], s["timecardId"]) for s in sheet["paySegments"]} == {(first_day, CARD)}
    assert len({s["id"] for s in sheet["paySegments"]}) == 3


def test_get_timesheet_reports_icu_nurse_open_clock_in_without_warning(api, world):
    sheet = _sheet(api, provider=str(world.icu_nurse), **FIRST_DAY).get_json()

    assert sheet["warnings"] == []
    assert sheet["errors"] == [{"type": "no_clock_out",
                                "shiftId": _shift_id(api, world.icu_nurse, START),
                                "timecardId": ICU_CARD}]
    assert sheet["paySegments"] == []


def test_get_timesheet_reports_missing_pay_period_template(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        session.get(m.Provider, world.provider).pay_period_template = None

    sheet = _sheet(fresh_api, provider=str(world.provider), **FIRST_DAY).get_json()

    assert sheet["errors"] == [{"type": "missing_pay_period_template"}]


def test_get_timesheet_reports_missing_timecard_for_shifts_without_one(api, world):
    sheet = _sheet(api, provider=str(world.doctor), **FIRST_DAY).get_json()

    assert sheet["errors"] == [{"type": "missing_timecard",
                                "shiftId": _shift_id(api, world.doctor, START)}]
    assert sheet["payCodeTotals"] == [{"payCodeId": REG,
                                       "roleId": str(world.ed_doctor_role),
                                       "scheduled": 690, "actual": 0}]


def test_get_timesheet_answers_negative_range_when_end_not_after_start(api, world):
    body = problem_of(_sheet(api, provider=str(world.provider),
                           startDate="2026-03-03T05:00:00+0000",
                           endDate="2026-03-03T05:00:00+0000"), 400, "negative-range")
    assert body["path"] == "endDate"


def test_get_timesheet_rejects_bad_queries(api, world):
    both = _sheet(api, provider=str(world.provider), team=str(world.ed), **FIRST_DAY)
    assert problem_of(both, 400, "validation")["path"] == "team"
    neither = _sheet(api, **FIRST_DAY)
    assert problem_of(neither, 400, "validation")["path"] == "team"
    no_end = _sheet(api, provider=str(world.provider), startDate=FIRST_DAY["startDate"])
    assert problem_of(no_end, 400, "validation")["path"] == "endDate"
    too_long = _sheet(api, provider=str(world.provider), startDate="2025-01-01T00:00:00Z",
                      endDate="2026-03-01T00:00:00Z")
    assert problem_of(too_long, 400, "validation")["path"] == "endDate"
    ancient = _sheet(api, provider=str(world.provider), startDate="0001-01-01T00:00:00Z",
                     endDate="0001-01-02T00:00:00Z")
    assert problem_of(ancient, 400, "validation")["path"] == "startDate"


def test_get_timesheet_answers_not_found(api, world):
    problem_of(_sheet(api, provider=str(uuid.uuid4()), **FIRST_DAY), 404, "provider-not-found")
    problem_of(_sheet(api, team=str(uuid.uuid4()), **FIRST_DAY), 404, "team-not-found")


def test_get_timesheet_forbids_manager_reading_other_team_provider(api, world):
    body = problem_of(_sheet(api, user="manager@example.com", provider=str(world.icu_nurse),
                           **FIRST_DAY), 403, "unauthorized")
    assert body["resource"] == "Timesheet"
    problem_of(_sheet(api, user="provider@example.com", provider=str(world.doctor), **FIRST_DAY),
             403, "unauthorized")


def test_get_timesheet_by_team_pages_manager_team_by_provider_name(api, world):
    pages = api.walk("/v1/timekeeping/timesheet", page_size=2, user="manager@example.com",
                     query_string={"team": str(world.ed), **TWO_DAYS})

    assert [len(page) for page in pages] == [2, 2, 2]
    sheets = [sheet for page in pages for sheet in page]
    with api.db.unit_of_work() as session:
        names = dict(session.execute(select(m.Provider.id, m.Provider.name)).tuples().all())
    assert [names[uuid.UUID(s["providerId"])] for s in sheets] == ED_NAMES
    mine = next(s for s in sheets if s["providerId"] == str(world.provider))
    assert mine["warnings"] == _sheet(api, provider=str(world.provider),
                                      **TWO_DAYS).get_json()["warnings"]
    assert mine["payCodeTotals"][0]["actual"] == 696


def test_get_timesheet_by_team_shows_only_what_the_caller_may_view(api, world):
    own = _sheet(api, user="provider@example.com", team=str(world.ed), **FIRST_DAY).get_json()
    assert [s["providerId"] for s in own["items"]] == [str(world.provider)]
    other = _sheet(api, user="manager@example.com", team=str(world.icu), **FIRST_DAY).get_json()
    assert other == {"items": [], "cursor": None}


def test_get_timesheet_by_team_costs_the_same_statements_for_any_page_size(api, world):
    query = {"team": str(world.ed), **TWO_DAYS}
    counts = []
    for size in (1, 2, 6):
        with api.count_queries() as statements:
            response = _sheet(api, user="manager@example.com", pageSize=size, **query)
        assert response.status_code == 200, response.get_json()
        assert len(response.get_json()["items"]) == size
        counts.append(len(statements))
    assert counts[0] == counts[1] == counts[2], counts


def test_get_timesheet_answers_exactly_what_the_contract_models_write(api, world):
    """The answers are built as plain documents, not through `TimesheetRead`: they must say
    byte for byte what the models would (member order, members left out, ids, instants)."""
    team = _sheet(api, team=str(world.ed), **TWO_DAYS)
    one = _sheet(api, provider=str(world.provider), **TWO_DAYS)
    lonely = _sheet(api, provider=str(world.doctor), **FIRST_DAY)

    assert team.status_code == one.status_code == lonely.status_code == 200
    page = TimesheetPage.model_validate_json(team.data)
    assert page.model_dump_json(by_alias=True).encode() == team.data
    for response in (one, lonely):
        sheet = TimesheetRead.model_validate_json(response.data)
        assert sheet.model_dump_json(by_alias=True).encode() == response.data
    # What the comparison covers: every kind of member, set and left out.
    items = page.items
    assert any(s.pay_segments and s.warnings for s in items)
    assert any(e.shift_id and e.timecard_id for s in items for e in s.errors)
    assert any(e.shift_id and e.timecard_id is None for s in items for e in s.errors)
    assert any(p.role is None and p.pay_codes == [] for s in items for p in s.pay_segments)
    assert any(p.shift_id is not None for s in items for p in s.punches)


def _night(fresh_api, world, *, start: datetime, end: datetime, card: uuid.UUID,
           punches: list[tuple[str, datetime]]) -> str:
    """A night shift of Pat's from `start` to `end` and punches on `card`; the shift's id."""
    with fresh_api.db.unit_of_work(write=True) as session:
        pat = session.get(m.Provider, world.provider)
        shift = make_shift(session, provider=pat, team=session.get(m.Team, world.ed),
                           role=session.get(m.Role, world.ed_nurse_role), start=start,
                           hours=1, break_at=None)
        shift.end_date = shift.segments[0].end_date = end
        for action, at in punches:
            session.add(m.TimecardPunch(timecard_id=card, provider_id=world.provider,
                                        action=action, state="approved", time=at))
        session.flush()
        return str(shift.id)


def test_timesheet_punches_name_the_night_shift_they_were_worked_for_across_dst_start(
        fresh_api, world):
    # Sat 7 Mar 2026, 7 PM EST to Sun 8 Mar, 7 AM EDT: clocks spring forward at 2 AM.
    start, end = datetime(2026, 3, 8, 0, tzinfo=UTC), datetime(2026, 3, 8, 11, tzinfo=UTC)
    night = _night(fresh_api, world, start=start, end=end, card=uid("timecard:provider"),
                   punches=[("clock_in", start - timedelta(minutes=2)),
                            ("break_start", start + timedelta(hours=4)),
                            ("break_end", start + timedelta(hours=4, minutes=30)),
                            ("clock_out", end + timedelta(minutes=2)),
                            # Sun 8 Mar, 11 PM EDT: no shift near it.
                            ("clock_in", datetime(2026, 3, 9, 3, tzinfo=UTC)),
                            ("clock_out", datetime(2026, 3, 9, 3, 30, tzinfo=UTC))])
    response = _sheet(fresh_api, provider=str(world.provider),
                      startDate="2026-03-07T05:00:00+0000", endDate="2026-03-09T04:00:00+0000")

    assert response.status_code == 200, response.get_json()
    sheet = response.get_json()
    assert all(set(p) == SHEET_PUNCH_KEYS for p in sheet["punches"])
    by_time = {p["time"]: p for p in sheet["punches"]}
    worked = [by_time[_wire(t)] for t in (start - timedelta(minutes=2), start + timedelta(hours=4),
                                          start + timedelta(hours=4, minutes=30),
                                          end + timedelta(minutes=2))]
    assert [p["shiftId"] for p in worked] == [night] * 4
    stray = by_time["2026-03-09T03:00:00+0000"]
    assert stray["shiftId"] is None
    assert by_time["2026-03-09T03:30:00+0000"]["shiftId"] is None
    assert {"type": "missing_shift", "punchId": stray["id"]} in sheet["warnings"]
    assert not any(w["punchId"] in {p["id"] for p in worked} for w in sheet["warnings"])
    # A window ending at midnight still names the shift of the punches before it.
    evening = _sheet(fresh_api, provider=str(world.provider),
                     startDate="2026-03-07T05:00:00+0000", endDate="2026-03-08T05:00:00+0000")
    assert [p["shiftId"] for p in evening.get_json()["punches"]
            if p["time"] >= "2026-03-07T23"] == [night] * 3  # clock-in, break


def test_timesheet_punches_name_the_night_shift_across_dst_end(fresh_api, world):
    # Sat 31 Oct 2026, 7 PM EDT to Sun 1 Nov, 7 AM EST: clocks fall back at 2 AM (13 hours).
    start, end = datetime(2026, 10, 31, 23, tzinfo=UTC), datetime(2026, 11, 1, 12, tzinfo=UTC)
    with fresh_api.db.unit_of_work(write=True) as session:
        card = m.Timecard(provider_id=world.provider,
                          period_start=datetime(2026, 10, 19, 4, tzinfo=UTC),
                          period_end=datetime(2026, 11, 2, 5, tzinfo=UTC))
        session.add(card)
        session.flush()
        card_id = card.id
    night = _night(fresh_api, world, start=start, end=end, card=card_id,
                   punches=[("clock_in", start), ("clock_out", end)])
    response = _sheet(fresh_api, provider=str(world.provider),
                      startDate="2026-10-31T04:00:00+0000", endDate="2026-11-02T05:00:00+0000")

    assert response.status_code == 200, response.get_json()
    sheet = response.get_json()
    assert [(p["action"], p["shiftId"]) for p in sheet["punches"]] == [
        ("clock_in", night), ("clock_out", night)]
    assert sheet["warnings"] == []


def test_openapi_documents_timekeeping_reads(api):
    document = api.get("/v1/openapi.json").get_json()
    paths = document["paths"]
    for path in ("/v1/timekeeping/timecard/me", "/v1/timekeeping/timecard/{provider}",
                 "/v1/timekeeping/timesheet"):
        assert paths[path]["get"]["tags"] == ["Timekeeping"], path
    parameters = {p["name"]: p for p in paths["/v1/timekeeping/timecard/{provider}"]["get"]
                  ["parameters"]}
    assert parameters["startDate"].get("x-shiftdesk-extension") is True
