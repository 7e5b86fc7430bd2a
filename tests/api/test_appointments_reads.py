"""Reading appointments and appointment types through /v1: fields, filters, pages, permissions."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import START, uid

APPOINTMENTS = "/v1/appointments"
TYPES = "/v1/appointment-types"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
FIELDS = {"id", "createdAt", "type", "status", "providerId", "memberId", "startDate", "endDate",
          "actualStartDate", "actualEndDate", "location", "version"}

# build_world books 25 appointments with the doctor: number i starts on day i % 10 at
# 13:00 + i // 10 hours UTC, lasts 30 minutes, and number 7 is the only cancelled one.
ALL = [str(uid(f"appt:{i}")) for i in sorted(range(25), key=lambda i: (i % 10, i // 10))]


def wire(value: Any) -> str:
    """A datetime as the API writes it."""
    return value.strftime("%Y-%m-%dT%H:%M:%S+0000")


def ids(response: Any) -> list[str]:
    """Ids of a page's items, asserting the page came back."""
    assert response.status_code == 200, response.get_json()
    return [item["id"] for item in response.get_json()["items"]]


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


# Appointments: fields ---------------------------------------------------------------------------


def test_get_appointment_returns_cancelled_fields(api, world):
    response = api.get(f"{APPOINTMENTS}/{uid('appt:7')}")
    assert response.status_code == 200
    body = response.get_json()
    begin = START + timedelta(days=7, hours=1)
    assert TIMESTAMP.match(body.pop("createdAt"))
    assert body == {
        "id": str(uid("appt:7")),
        "type": "New patient visit",
        "status": "cancelled",
        "providerId": str(world.doctor),
        "memberId": "member-007",
        "startDate": "2026-03-09T13:00:00+0000",
        "endDate": "2026-03-09T13:30:00+0000",
        "actualStartDate": None,
        "actualEndDate": None,
        "location": "Room 4",
        "cancellationDate": wire(begin - timedelta(days=1)),
        "cancellationReason": "Patient asked",
        "version": 1,
    }


def test_get_appointment_omits_cancellation_when_upcoming(api, world):
    body = api.get(f"{APPOINTMENTS}/{uid('appt:0')}").get_json()
    assert set(body) == FIELDS
    assert body["status"] == "upcoming"
    assert body["startDate"] == "2026-03-02T13:00:00+0000"
    assert body["endDate"] == "2026-03-02T13:30:00+0000"
    assert body["providerId"] == str(world.doctor)


def test_list_appointments_shows_cancellation_only_on_cancelled_item(api):
    items = api.get(APPOINTMENTS, query_string={"pageSize": 200}).get_json()["items"]
    assert len(items) == 25
    cancelled = [i for i in items if "cancellationDate" in i or "cancellationReason" in i]
    assert [i["id"] for i in cancelled] == [str(uid("appt:7"))]
    assert cancelled[0]["cancellationReason"] == "Patient asked"
    for item in items:
        if item["id"] != str(uid("appt:7")):
            assert set(item) == FIELDS
            assert item["status"] == "upcoming"
        assert TIMESTAMP.match(item["startDate"])
        assert item["version"] == 1


# Appointments: pages ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 4, 200])
def test_list_appointments_walks_pages_in_start_order(api, size):
    pages = api.walk(APPOINTMENTS, page_size=size)
    flat = [item["id"] for page in pages for item in page]
    assert flat == ALL
    assert all(len(page) <= size for page in pages)
    assert len(pages) == -(-25 // size)


def test_list_appointments_ends_with_null_cursor(api):
    body = api.get(APPOINTMENTS, query_string={"pageSize": 25}).get_json()
    assert len(body["items"]) == 25
    assert body["cursor"] is None


def test_list_appointments_rejects_tampered_cursor(api):
    cursor = api.get(APPOINTMENTS, query_string={"pageSize": 2}).get_json()["cursor"]
    tampered = cursor[:-3] + ("AAA" if not cursor.endswith("AAA") else "BBB")
    response = api.get(APPOINTMENTS, query_string={"pageSize": 2, "cursor": tampered})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "cursor"


def test_list_appointments_rejects_cursor_of_another_list(api):
    cursor = api.get(TYPES, query_string={"pageSize": 1}).get_json()["cursor"]
    assert cursor is not None
    response = api.get(APPOINTMENTS, query_string={"pageSize": 1, "cursor": cursor})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "cursor"


def test_list_appointments_rejects_cursor_when_filters_change(api):
    cursor = api.get(APPOINTMENTS, query_string={"pageSize": 2}).get_json()["cursor"]
    response = api.get(APPOINTMENTS,
                       query_string={"pageSize": 2, "cursor": cursor, "status": "upcoming"})
    assert response.status_code == 400
    assert response.get_json()["path"] == "cursor"


@pytest.mark.parametrize("size", ["0", "201", "ten"])
def test_list_appointments_rejects_page_size_out_of_bounds(api, size):
    response = api.get(APPOINTMENTS, query_string={"pageSize": size})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "pageSize"


def test_list_appointments_defaults_to_twenty_per_page(api):
    body = api.get(APPOINTMENTS).get_json()
    assert [i["id"] for i in body["items"]] == ALL[:20]
    assert body["cursor"] is not None


def test_list_appointments_issues_same_statements_whatever_page_size(api):
    for user in ("admin@example.com", "manager@example.com", "doctor@example.com"):
        with api.count_queries() as small:
            assert len(ids(api.get(APPOINTMENTS, user=user, query_string={"pageSize": 2}))) == 2
        with api.count_queries() as large:
            assert len(ids(api.get(APPOINTMENTS, user=user, query_string={"pageSize": 25}))) == 25
        assert len(small) == len(large), user


# Appointments: filters --------------------------------------------------------------------------


def test_list_appointments_filters_by_member(api):
    assert ids(api.get(APPOINTMENTS, query_string={"memberId": "member-007"})) == [
        str(uid("appt:7"))
    ]
    assert ids(api.get(APPOINTMENTS, query_string={"memberId": "member-999"})) == []


def test_list_appointments_filters_by_status(api):
    assert ids(api.get(APPOINTMENTS, query_string={"status": "cancelled"})) == [
        str(uid("appt:7"))
    ]
    upcoming = ids(api.get(APPOINTMENTS, query_string={"status": "upcoming", "pageSize": 200}))
    assert upcoming == [i for i in ALL if i != str(uid("appt:7"))]
    assert ids(api.get(APPOINTMENTS, query_string={"status": "no-show"})) == []


def test_list_appointments_filters_by_type(api):
    assert len(ids(api.get(APPOINTMENTS, query_string={"type": "New patient visit",
                                                       "pageSize": 200}))) == 25
    assert ids(api.get(APPOINTMENTS, query_string={"type": "Follow-up"})) == []


def test_list_appointments_filters_by_provider(api, world):
    doctor = ids(api.get(APPOINTMENTS, query_string={"providerId": str(world.doctor),
                                                     "pageSize": 200}))
    assert doctor == ALL
    assert ids(api.get(APPOINTMENTS, query_string={"providerId": str(world.provider)})) == []


def test_list_appointments_filters_by_team_of_provider(api, world):
    assert ids(api.get(APPOINTMENTS, query_string={"teamId": str(world.ed),
                                                   "pageSize": 200})) == ALL
    assert ids(api.get(APPOINTMENTS, query_string={"teamId": str(world.icu)})) == []


def test_list_appointments_filters_by_overlapping_window(api):
    day_one = {"startDate": "2026-03-03T00:00:00+0000", "endDate": "2026-03-04T00:00:00Z"}
    assert ids(api.get(APPOINTMENTS, query_string=day_one)) == [
        str(uid("appt:1")), str(uid("appt:11")), str(uid("appt:21"))
    ]


def test_list_appointments_window_is_half_open(api):
    between = {"startDate": "2026-03-02T13:30:00+0000", "endDate": "2026-03-02T14:00:00+0000"}
    assert ids(api.get(APPOINTMENTS, query_string=between)) == []
    straddling = {"startDate": "2026-03-02T13:29:00+0000", "endDate": "2026-03-02T14:01:00+0000"}
    assert ids(api.get(APPOINTMENTS, query_string=straddling)) == [
        str(uid("appt:0")), str(uid("appt:10"))
    ]


def test_list_appointments_filters_by_open_ended_window(api):
    after = ids(api.get(APPOINTMENTS, query_string={"startDate": "2026-03-11T14:00:00+0000"}))
    assert after == [str(uid("appt:19"))]
    before = ids(api.get(APPOINTMENTS, query_string={"endDate": "2026-03-02T13:00:01+00:00"}))
    assert before == [str(uid("appt:0"))]


def test_list_appointments_combines_filters(api, world):
    query = {"providerId": str(world.doctor), "status": "upcoming",
             "startDate": "2026-03-09T00:00:00+0000", "endDate": "2026-03-10T00:00:00+0000"}
    assert ids(api.get(APPOINTMENTS, query_string=query)) == [
        str(uid("appt:17"))
    ]


@pytest.mark.parametrize("end", ["2026-03-03T00:00:00+0000", "2026-03-02T00:00:00+0000"])
def test_list_appointments_rejects_negative_range(api, end):
    response = api.get(APPOINTMENTS,
                       query_string={"startDate": "2026-03-03T00:00:00+0000", "endDate": end})
    assert response.status_code == 400
    assert problem_code(response) == "negative-range"
    assert response.get_json()["path"] == "endDate"


@pytest.mark.parametrize(("param", "value"), [
    ("status", "done"),
    ("providerId", "not-a-uuid"),
    ("teamId", "42"),
    ("startDate", "2026-03-03"),
    ("endDate", "yesterday"),
])
def test_list_appointments_rejects_malformed_filter(api, param, value):
    response = api.get(APPOINTMENTS, query_string={param: value})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == param


# Appointments: who sees what --------------------------------------------------------------------


def test_list_appointments_shows_provider_none_when_they_have_none(api):
    body = api.get(APPOINTMENTS, user="provider@example.com").get_json()
    assert body == {"items": [], "cursor": None}


def test_list_appointments_shows_doctor_their_own(api, world):
    pages = api.walk(APPOINTMENTS, page_size=10, user="doctor@example.com")
    items = [item for page in pages for item in page]
    assert [i["id"] for i in items] == ALL
    assert {i["providerId"] for i in items} == {str(world.doctor)}


@pytest.mark.parametrize(("user", "count"), [
    ("scheduler@example.com", 25),
    ("manager@example.com", 25),
    ("icu.manager@example.com", 0),
    ("admin@example.com", 25),
])
def test_list_appointments_follows_permission_rules(api, user, count):
    pages = api.walk(APPOINTMENTS, page_size=200, user=user)
    assert len(pages[0]) == count


def test_get_appointment_allows_own_provider(api):
    response = api.get(f"{APPOINTMENTS}/{uid('appt:3')}", user="doctor@example.com")
    assert response.status_code == 200
    assert response.get_json()["id"] == str(uid("appt:3"))


def test_get_appointment_allows_scheduler(api):
    response = api.get(f"{APPOINTMENTS}/{uid('appt:3')}", user="scheduler@example.com")
    assert response.status_code == 200


def test_get_appointment_refuses_other_provider(api):
    response = api.get(f"{APPOINTMENTS}/{uid('appt:3')}", user="provider@example.com")
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
    assert response.get_json()["action"] == "view"
    assert response.get_json()["resource"] == "Appointment"


def test_get_appointment_returns_404_when_missing(api):
    missing = uuid.uuid4()
    response = api.get(f"{APPOINTMENTS}/{missing}")
    assert response.status_code == 404
    assert problem_code(response) == "appointment-not-found"
    assert str(missing) in response.get_json()["detail"]


def test_get_appointment_rejects_malformed_id(api):
    response = api.get(f"{APPOINTMENTS}/not-a-uuid")
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "appointmentId"


def test_list_appointments_requires_token(api):
    response = api.get(APPOINTMENTS, user=None)
    assert response.status_code == 401
    assert problem_code(response) == "unauthenticated"


# Appointment types ------------------------------------------------------------------------------


def test_list_appointment_types_hides_archived(api, world):
    body = api.get(TYPES).get_json()
    assert body == {
        "items": [
            {"id": str(uid("atype:follow")), "name": "Follow-up", "length": 15,
             "allowedRoles": None, "skillRequirement": None, "archived": False},
            {"id": str(uid("atype:new")), "name": "New patient visit", "length": 30,
             "allowedRoles": [str(world.ed_doctor_role)],
             "skillRequirement": {"type": "equal", "skill": "language", "value": "French"},
             "archived": False},
        ],
        "cursor": None,
    }


@pytest.mark.parametrize("user", ["provider@example.com", "doctor@example.com",
                                  "manager@example.com", "bot@example.com"])
def test_list_appointment_types_allows_any_signed_in_user(api, user):
    assert len(ids(api.get(TYPES, user=user))) == 2


def test_list_appointment_types_walks_pages_by_name(api):
    pages = api.walk(TYPES, page_size=1)
    assert [[i["name"] for i in page] for page in pages] == [["Follow-up"], ["New patient visit"]]


def test_list_appointment_types_rejects_page_size_out_of_bounds(api):
    response = api.get(TYPES, query_string={"pageSize": 201})
    assert response.status_code == 400
    assert response.get_json()["path"] == "pageSize"


def test_get_appointment_type_reads_archived_type(api):
    response = api.get(f"{TYPES}/{uid('atype:old')}", user="provider@example.com")
    assert response.status_code == 200
    assert response.get_json() == {
        "id": str(uid("atype:old")), "name": "Retired visit", "length": 20,
        "allowedRoles": None, "skillRequirement": None, "archived": True,
    }


def test_get_appointment_type_returns_active_type(api):
    body = api.get(f"{TYPES}/{uid('atype:new')}").get_json()
    assert body["name"] == "New patient visit"
    assert body["archived"] is False


def test_get_appointment_type_returns_404_when_missing(api):
    response = api.get(f"{TYPES}/{uuid.uuid4()}")
    assert response.status_code == 404
    assert problem_code(response) == "appointment-type-not-found"


def test_get_appointment_type_rejects_malformed_id(api):
    response = api.get(f"{TYPES}/atype-1")
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "appointmentTypeId"


def test_get_appointment_type_requires_token(api):
    response = api.get(f"{TYPES}/{uid('atype:new')}", user=None)
    assert response.status_code == 401


def test_get_appointment_type_shows_stored_extra_properties(fresh_api):
    from app.api import models as m

    with fresh_api.db.unit_of_work(write=True) as session:
        kind = m.AppointmentType(name="Telehealth", length=20,
                                 extra={"color": "teal", "name": "ignored", "archived": True})
        session.add(kind)
        session.flush()
        kind_id = kind.id
    body = fresh_api.get(f"{TYPES}/{kind_id}").get_json()
    assert body["color"] == "teal"
    assert body["name"] == "Telehealth"
    assert body["archived"] is False


def test_openapi_marks_appointment_type_read_by_id_as_extension(api):
    document = api.get("/v1/openapi.json").get_json()
    by_id = document["paths"]["/v1/appointment-types/{appointmentTypeId}"]["get"]
    assert by_id["x-shiftdesk-extension"] is True
    assert "x-shiftdesk-extension" not in document["paths"]["/v1/appointment-types"]["get"]
    schema = document["components"]["schemas"]["AppointmentTypeRead"]
    assert schema["properties"]["archived"]["x-shiftdesk-extension"] is True
