"""The client calls the scheduler pages rely on: slot search, booking overlaps, archived types
and version conflicts arrive as the exceptions the views branch on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, build_http
from app.client.errors import Conflict, NotFound, VersionConflict
from app.contract.appointments import AppointmentCreate, AppointmentUpdate, SlotSearch
from tests.factories import uid

DAY = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)  # 7 AM New York on a day with shifts


@pytest.fixture
def scheduler(api):
    http = build_http(wsgi_app=api.app)
    yield ApiClient(http, api.token("scheduler@example.com"))
    http.close()


def test_search_slots_returns_typed_slots_best_first(scheduler):
    found = scheduler.search_slots(SlotSearch(
        appointment_type_id=str(uid("atype:follow")), start_date=DAY,
        end_date=DAY + timedelta(hours=12), limit=5))
    assert len(found.results) == 5
    scores = [slot.score for slot in found.results]
    assert scores == sorted(scores, reverse=True)


def test_search_slots_for_an_archived_type_is_not_found(scheduler):
    with pytest.raises(NotFound) as raised:
        scheduler.search_slots(SlotSearch(appointment_type_id=str(uid("atype:old")),
                                          start_date=DAY, end_date=DAY + timedelta(hours=2)))
    assert raised.value.code == "appointment-type-not-found"


def test_booking_a_taken_time_is_an_overlap_conflict(scheduler):
    body = AppointmentCreate(type="Follow-up", provider_id=uid("user:ed.nurse1@example.com"),
                             start_date=DAY, end_date=DAY + timedelta(minutes=15),
                             member_id="M-1", location="Room 1")
    scheduler.create_appointment(body)
    with pytest.raises(Conflict) as raised:
        scheduler.create_appointment(body)
    assert raised.value.code == "appointment-overlap"


def test_a_stale_version_is_a_version_conflict_with_the_current_one(scheduler):
    booked = scheduler.create_appointment(AppointmentCreate(
        type="Follow-up", provider_id=uid("user:ed.nurse2@example.com"), start_date=DAY,
        end_date=DAY + timedelta(minutes=15), member_id="M-2", location="Room 2"))
    assert booked.version is not None
    scheduler.update_appointment(booked.id, AppointmentUpdate(version=booked.version,
                                                              location="Room 3"))
    with pytest.raises(VersionConflict) as raised:
        scheduler.update_appointment(booked.id, AppointmentUpdate(version=booked.version,
                                                                  location="Room 4"))
    assert raised.value.current_version == booked.version + 1
