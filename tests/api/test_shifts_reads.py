"""Reading shifts: GET /v1/shifts and GET /v1/shifts/{shiftId}.

Fields and formats, pagination, the callout/open/window/provider/team filters, display names,
what each role may see, problems, and a constant number of SQL statements per page.
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.api.models import Shift
from tests.factories import START, uid
from tests.problems import problem_of

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
SHIFT_KEYS = {"id", "createdAt", "version", "provider", "startDate", "endDate", "segments",
              "payCodes", "team", "note", "isCallout", "workRuleOverride"}
SEGMENT_KEYS = {"id", "importedId", "createdAt", "role", "isBreak", "isOnCall", "type",
                "startDate", "endDate", "skillRequirement", "labels"}
ALL_SHIFTS = 83  # 8 providers x 10 days, 2 open shifts, 1 on-call shift; the callout is hidden


def _wire(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")


def _all(api: Any, user: str = "admin@example.com", **query: Any) -> list[dict[str, Any]]:
    pages = api.walk("/v1/shifts", page_size=200, user=user, query_string=query)
    return [item for page in pages for item in page]


def _shift_id(api: Any, world: Any, name: str) -> str:
    """`world.ids[name]`, or the same shift found in the database while the world records None.

    `build_world` records `open_ed` and `callout` before the session flushes, so their ids can be
    None; the lookup reads the same rows directly, independently of the API under test.
    """
    if world.ids.get(name) is not None:
        return str(world.ids[name])
    condition = {
        "callout": Shift.is_callout.is_(True),
        "open_ed": Shift.provider_id.is_(None) & (Shift.team_id == world.ed),
    }[name]
    with api.db.unit_of_work() as session:
        return str(session.scalars(select(Shift.id).where(condition)).one())



def _first_shift_of_provider(api: Any, world: Any, **query: Any) -> dict[str, Any]:
    response = api.get("/v1/shifts", query_string={"providerId": str(world.provider),
                                                   "pageSize": 1, **query})
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"][0]


# Fields -----------------------------------------------------------------------------------------


def test_list_shifts_returns_spec_fields_and_formats(api, world):
    shift = _first_shift_of_provider(api, world)

    assert set(shift) == SHIFT_KEYS
    assert shift["provider"] == str(world.provider)
    assert shift["team"] == str(world.ed)
    assert shift["startDate"] == _wire(START)
    assert shift["endDate"] == _wire(START + timedelta(hours=12))
    assert TIMESTAMP.match(shift["createdAt"])
    assert shift["version"] == 1
    assert shift["note"] == "Charge on pod B"
    assert shift["isCallout"] is False
    assert shift["workRuleOverride"] is None
    assert shift["payCodes"] == [{"payCodeId": str(uid("pay:REG"))}]
    segments = shift["segments"]
    assert [s["type"] for s in segments] == ["working", "unpaid_break", "working"]
    assert [s["isBreak"] for s in segments] == [False, True, False]
    assert [s["startDate"] for s in segments] == sorted(s["startDate"] for s in segments)
    for segment in segments:
        assert set(segment) == SEGMENT_KEYS
        assert segment["role"] == str(world.ed_nurse_role)
        assert segment["isOnCall"] is False
        assert segment["importedId"] is None
        assert segment["skillRequirement"] is None
        assert TIMESTAMP.match(segment["createdAt"])
    assert segments[0]["labels"] == [str(uid("label:charge"))]
    assert segments[1]["labels"] == []


def test_list_shifts_shows_on_call_segments(api, world):
    shifts = _all(api, providerId=str(world.doctor))
    on_call = [s for s in shifts if s["segments"][0]["type"] == "on_call"]

    assert len(on_call) == 1
    assert on_call[0]["segments"][0]["isOnCall"] is True
    assert on_call[0]["payCodes"] == []


# Pagination -------------------------------------------------------------------------------------


def test_list_shifts_walks_same_ordered_set_whatever_the_page_size(api):
    walks = {size: api.walk("/v1/shifts", page_size=size) for size in (1, 7, 200)}
    flat = {size: [s["id"] for page in pages for s in page] for size, pages in walks.items()}

    assert flat[1] == flat[7] == flat[200]
    assert len(flat[200]) == len(set(flat[200])) == ALL_SHIFTS
    assert all(len(page) == 7 for page in walks[7][:-1])
    assert len(walks[7]) == -(-ALL_SHIFTS // 7)
    items = [s for page in walks[200] for s in page]
    keys = [(s["startDate"], s["id"]) for s in items]
    assert keys == sorted(keys)


@pytest.mark.parametrize("size", ["0", "201", "many"])
def test_list_shifts_rejects_page_size_out_of_range(api, size):
    response = api.get("/v1/shifts", query_string={"pageSize": size})

    assert problem_of(response, 400, "validation")["path"] == "pageSize"


def test_list_shifts_rejects_tampered_cursor(api):
    cursor = api.get("/v1/shifts", query_string={"pageSize": 2}).get_json()["cursor"]
    tampered = cursor[:-3] + ("AAA" if not cursor.endswith("AAA") else "BBB")

    response = api.get("/v1/shifts", query_string={"pageSize": 2, "cursor": tampered})

    assert problem_of(response, 400, "validation")["path"] == "cursor"


def test_list_shifts_rejects_cursor_when_filters_changed(api):
    cursor = api.get("/v1/shifts", query_string={"pageSize": 2}).get_json()["cursor"]

    response = api.get("/v1/shifts", query_string={"pageSize": 2, "cursor": cursor,
                                                   "openOnly": "true"})

    assert problem_of(response, 400, "validation")["path"] == "cursor"


# Filters ----------------------------------------------------------------------------------------


def test_list_shifts_hides_callouts_by_default(api, world):
    ids = {s["id"] for s in _all(api)}

    assert _shift_id(api, world, "callout") not in ids


def test_list_shifts_shows_callouts_when_included(api, world):
    shifts = _all(api, includeCallouts="true")

    callouts = [s for s in shifts if s["isCallout"]]
    assert [s["id"] for s in callouts] == [_shift_id(api, world, "callout")]
    assert len(shifts) == ALL_SHIFTS + 1


def test_list_shifts_returns_only_open_shifts_when_open_only(api, world):
    shifts = _all(api, openOnly="true")

    assert len(shifts) == 2
    assert all(s["provider"] is None for s in shifts)
    assert _shift_id(api, world, "open_ed") in {s["id"] for s in shifts}
    assert {s["team"] for s in shifts} == {str(world.ed), str(world.icu)}


def test_list_shifts_filters_by_provider_and_team(api, world):
    doctor = _all(api, providerId=str(world.doctor))
    icu = _all(api, teamId=str(world.icu))

    assert len(doctor) == 11  # 10 days and the on-call shift
    assert {s["provider"] for s in doctor} == {str(world.doctor)}
    assert len(icu) == 31  # 3 providers x 10 days and one open shift
    assert {s["team"] for s in icu} == {str(world.icu)}


def test_list_shifts_excludes_shifts_touching_the_window_edges(api):
    day_two_end = START + timedelta(days=2, hours=12)  # day-2 shifts end here …
    day_three_start = START + timedelta(days=3)  # … and day-3 shifts start here

    edges = _all(api, startDate=_wire(day_two_end), endDate=_wire(day_three_start))
    widened = _all(api, startDate=_wire(day_two_end - timedelta(seconds=1)),
                   endDate=_wire(day_three_start + timedelta(seconds=1)))

    assert edges == []
    assert len(widened) == 16
    assert {s["startDate"] for s in widened} == {
        _wire(START + timedelta(days=2)), _wire(day_three_start)
    }


def test_list_shifts_accepts_z_and_colon_offsets(api):
    window = {"startDate": "2026-03-04T23:59:59Z", "endDate": "2026-03-05T07:00:01-05:00"}

    assert len(_all(api, **window)) == 16


@pytest.mark.parametrize("end", ["2026-03-05T00:00:00+0000", "2026-03-04T00:00:00+0000"])
def test_list_shifts_rejects_negative_range(api, end):
    response = api.get("/v1/shifts", query_string={"startDate": "2026-03-05T00:00:00Z",
                                                   "endDate": end})

    body = problem_of(response, 400, "negative-range")
    assert body["path"] == "endDate"
    assert body["detail"]


def test_list_shifts_rejects_malformed_timestamp(api):
    response = api.get("/v1/shifts", query_string={"startDate": "2026-03-05"})

    assert problem_of(response, 400, "validation")["path"] == "startDate"


# Display names ----------------------------------------------------------------------------------


def test_list_shifts_fills_display_names_when_asked(api, world):
    shift = _first_shift_of_provider(api, world, includeDisplayNames="true")

    assert shift["providerName"] == "Pat Provider"
    assert {s["roleName"] for s in shift["segments"]} == {"Registered Nurse"}
    assert {s["roleColor"] for s in shift["segments"]} == {"#1F77B4"}


def test_list_shifts_omits_display_names_by_default(api):
    shifts = _all(api)

    assert not any("providerName" in s for s in shifts)
    assert not any({"roleName", "roleColor"} & set(seg) for s in shifts for seg in s["segments"])


def test_list_shifts_omits_provider_name_of_open_shifts(api):
    shifts = _all(api, openOnly="true", includeDisplayNames="true")

    assert all("providerName" not in s for s in shifts)
    assert all(seg["roleName"] == "Registered Nurse" for s in shifts for seg in s["segments"])


def test_get_shift_fills_display_names_when_asked(api, world):
    shift_id = _first_shift_of_provider(api, world)["id"]

    named = api.get(f"/v1/shifts/{shift_id}", query_string={"includeDisplayNames": "true"})
    plain = api.get(f"/v1/shifts/{shift_id}")

    assert named.get_json()["providerName"] == "Pat Provider"
    assert named.get_json()["segments"][0]["roleColor"] == "#1F77B4"
    assert "providerName" not in plain.get_json()
    assert "roleName" not in plain.get_json()["segments"][0]


# Who sees what ----------------------------------------------------------------------------------


def test_list_shifts_shows_provider_own_and_team_open_shifts(api, world):
    shifts = _all(api, user="provider@example.com")

    assert len(shifts) == 11  # own 10 days and the open ED shift
    for shift in shifts:
        assert shift["provider"] == str(world.provider) or (
            shift["provider"] is None and shift["team"] == str(world.ed)
        ), shift
    assert _shift_id(api, world, "open_ed") in {s["id"] for s in shifts}


@pytest.mark.parametrize(
    ("user", "team", "count"),
    [("manager@example.com", "ed", 52), ("icu.manager@example.com", "icu", 31)],
)
def test_list_shifts_shows_managers_only_their_team(api, world, user, team, count):
    shifts = _all(api, user=user)

    assert len(shifts) == count
    assert {s["team"] for s in shifts} == {str(getattr(world, team))}


def test_get_shift_refuses_provider_another_providers_shift(api, world):
    shift_id = _all(api, providerId=str(world.doctor))[0]["id"]

    response = api.get(f"/v1/shifts/{shift_id}", user="provider@example.com")

    body = problem_of(response, 403, "unauthorized")
    assert (body["action"], body["resource"]) == ("view", "Shift")


def test_get_shift_refuses_manager_other_teams_shift(api, world):
    shift_id = _all(api, teamId=str(world.icu))[0]["id"]

    response = api.get(f"/v1/shifts/{shift_id}", user="manager@example.com")

    assert problem_of(response, 403, "unauthorized")["resource"] == "Shift"


# One shift --------------------------------------------------------------------------------------


def test_get_shift_returns_version_and_pay_codes(api, world):
    listed = _first_shift_of_provider(api, world)

    response = api.get(f"/v1/shifts/{listed['id']}", user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json() == listed


def test_get_shift_returns_callout_by_id(api, world):
    callout = _shift_id(api, world, "callout")

    response = api.get(f"/v1/shifts/{callout}", user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["isCallout"] is True


def test_get_shift_answers_not_found_for_unknown_id(api):
    response = api.get(f"/v1/shifts/{uuid.uuid4()}")

    assert "does not exist" in problem_of(response, 404, "shift-not-found")["detail"]


def test_get_shift_rejects_malformed_id(api):
    response = api.get("/v1/shifts/not-a-uuid")

    assert problem_of(response, 400, "validation")["path"] == "shiftId"


# Cost -------------------------------------------------------------------------------------------


def test_list_shifts_issues_same_statement_count_whatever_the_page_size(api):
    counts = {}
    for size in (3, 60):
        with api.count_queries() as statements:
            response = api.get("/v1/shifts", query_string={"pageSize": size,
                                                           "includeDisplayNames": "true"})
        assert response.status_code == 200, response.get_json()
        items = response.get_json()["items"]
        assert len(items) == size
        assert all(seg["roleName"] for s in items for seg in s["segments"])
        counts[size] = len(statements)

    assert counts[3] == counts[60]
