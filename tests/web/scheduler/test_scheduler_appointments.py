"""Appointments through the test client as the scheduler: filtered list kept in the URL with
cursor pages, detail, outcome, reschedule, cancel, and version conflicts resolved both ways."""

from __future__ import annotations

import re

import pytest

from tests.factories import uid
from tests.web.conftest import Web

APPOINTMENT = uid("appt:3")  # Dana Doctor, Thu 5 Mar 2026 8:00 AM New York, member-003


def hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', page)
    assert found, f"no hidden {name}"
    return found.group(1)


def test_list_filters_are_kept_in_the_url(sched: Web) -> None:
    response = sched.client.get("/appointments", query_string={
        "member": "member-003", "start": "2026-03-01", "end": "2026-03-31"})
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "member-003" in body
    assert "member-004" not in body
    assert 'value="member-003"' in body


def test_list_next_page_continues_the_list(sched: Web) -> None:
    from datetime import UTC, datetime, timedelta

    from app.api import models as m

    with sched.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        for index in range(3):
            begin = datetime(2026, 3, 20, 14, tzinfo=UTC) + timedelta(hours=index)
            session.add(m.Appointment(
                type="Follow-up", status="upcoming", provider_id=uid("user:doctor@example.com"),
                member_id=f"late-{index}", start_date=begin,
                end_date=begin + timedelta(minutes=15), location="Room 1"))
    body = sched.client.get("/appointments", query_string={
        "start": "2026-03-01", "end": "2026-03-31"}).get_data(as_text=True)
    assert body.count('<li id="appointment-') == 25
    found = re.search(r'href="([^"]*cursor=[^"]*)">Next page', body)
    assert found is not None
    second = sched.client.get(found.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert second.count('<li id="appointment-') == 3
    assert "late-2" in second
    assert "First page" in second
    assert 'value="2026-03-31"' in second  # the filters stay on every page


def test_list_fragment_for_htmx(sched: Web) -> None:
    response = sched.client.get("/appointments", headers={"HX-Request": "true"},
                                query_string={"status": "cancelled", "start": "2026-03-01"})
    body = response.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="appointment-table"')
    assert "member-007" in body
    assert "member-003" not in body


def test_list_bad_dates_are_inline(sched: Web) -> None:
    response = sched.client.get("/appointments", query_string={"start": "2026-03-05",
                                                               "end": "2026-03-01"})
    assert response.status_code == 422
    assert "The last day must not come before the first." in response.get_data(as_text=True)


def test_detail_shows_the_appointment(sched: Web) -> None:
    body = sched.client.get(f"/appointments/{APPOINTMENT}").get_data(as_text=True)
    assert "New patient visit" in body
    assert "Dana Doctor" in body
    assert "Thu 5 Mar" in body
    assert "Reschedule" in body


def test_mark_occurred_with_actual_times(sched: Web) -> None:
    page = sched.client.get(f"/appointments/{APPOINTMENT}").get_data(as_text=True)
    response = sched.client.post(f"/appointments/{APPOINTMENT}/outcome", data={
        "csrf_token": sched.csrf(), "version": hidden(page, "version"),
        "seen": hidden(page, "seen"), "status": "occurred", "actual_day": "2026-03-05",
        "actual_start": "08:05", "actual_end": "08:40"})
    assert response.status_code == 303
    body = sched.client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Marked occurred." in body
    assert "8:40 AM" in body


def test_outcome_needs_times_when_it_occurred(sched: Web) -> None:
    page = sched.client.get(f"/appointments/{APPOINTMENT}").get_data(as_text=True)
    response = sched.client.post(f"/appointments/{APPOINTMENT}/outcome", data={
        "csrf_token": sched.csrf(), "version": hidden(page, "version"), "status": "occurred",
        "actual_day": "2026-03-05", "actual_start": "", "actual_end": ""})
    assert response.status_code == 422
    assert "Enter when it actually started and ended." in response.get_data(as_text=True)


def test_reschedule_to_typed_times(sched: Web) -> None:
    page = sched.client.get(f"/appointments/{APPOINTMENT}/reschedule").get_data(as_text=True)
    assert "Or pick new times" in page
    response = sched.client.post(f"/appointments/{APPOINTMENT}/reschedule", data={
        "csrf_token": sched.csrf(), "version": hidden(page, "version"),
        "seen": hidden(page, "seen"), "provider_id": str(uid("user:doctor@example.com")),
        "day": "2026-03-05", "start_time": "15:00", "end_time": ""})
    assert response.status_code == 303
    body = sched.client.get(response.headers["Location"]).get_data(as_text=True)
    assert re.search(r"Rescheduled to Thu 5 Mar( 2026)?, 3:00 PM\.", body)
    assert "3:30 PM" in body  # same length kept


def test_reschedule_onto_another_booking_is_inline(sched: Web) -> None:
    page = sched.client.get(f"/appointments/{APPOINTMENT}/reschedule").get_data(as_text=True)
    response = sched.client.post(f"/appointments/{APPOINTMENT}/reschedule", data={
        "csrf_token": sched.csrf(), "version": hidden(page, "version"),
        "provider_id": str(uid("user:doctor@example.com")), "day": "2026-03-05",
        "start_time": "09:00", "end_time": "09:30"})  # appt:13 is booked then
    assert response.status_code == 422
    assert "already has an upcoming appointment" in response.get_data(as_text=True)


def test_cancel_needs_a_reason_then_cancels(sched: Web) -> None:
    page = sched.client.get(f"/appointments/{APPOINTMENT}/cancel").get_data(as_text=True)
    data = {"csrf_token": sched.csrf(), "version": hidden(page, "version"),
            "seen": hidden(page, "seen")}
    missing = sched.client.post(f"/appointments/{APPOINTMENT}/cancel",
                                data={**data, "cancellation_reason": ""})
    assert missing.status_code == 422
    assert "Say why it is cancelled." in missing.get_data(as_text=True)
    done = sched.client.post(f"/appointments/{APPOINTMENT}/cancel",
                             data={**data, "cancellation_reason": "Member is unwell"})
    assert done.status_code == 303
    body = sched.client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Appointment cancelled." in body
    assert "Member is unwell" in body


def test_version_conflict_shows_changes_and_applies_to_latest(sched: Web) -> None:
    stale = sched.client.get(f"/appointments/{APPOINTMENT}/cancel").get_data(as_text=True)
    moved = sched.client.get(f"/appointments/{APPOINTMENT}/reschedule").get_data(as_text=True)
    sched.client.post(f"/appointments/{APPOINTMENT}/reschedule", data={
        "csrf_token": sched.csrf(), "version": hidden(moved, "version"),
        "seen": hidden(moved, "seen"), "provider_id": str(uid("user:doctor@example.com")),
        "day": "2026-03-05", "start_time": "16:00"})
    conflict = sched.client.post(f"/appointments/{APPOINTMENT}/cancel", data={
        "csrf_token": sched.csrf(), "version": hidden(stale, "version"),
        "seen": hidden(stale, "seen"), "cancellation_reason": "Clash"})
    assert conflict.status_code == 409
    body = conflict.get_data(as_text=True)
    assert "Someone else changed this appointment" in body
    assert re.search("Thu 5 Mar( 2026)?, 8:00 AM", body)  # as the stale page showed it
    assert re.search("Thu 5 Mar( 2026)?, 4:00 PM", body)  # as it is now
    assert "Reload the latest version" in body
    applied = sched.client.post(f"/appointments/{APPOINTMENT}/cancel", data={
        "csrf_token": sched.csrf(), "version": hidden(body, "version"),
        "seen": hidden(body, "seen"), "cancellation_reason": hidden(body, "cancellation_reason")})
    assert applied.status_code == 303
    shown = sched.client.get(applied.headers["Location"]).get_data(as_text=True)
    assert "Cancelled" in shown
    assert "Clash" in shown


def test_changes_need_the_csrf_token(sched: Web) -> None:
    response = sched.client.post(f"/appointments/{APPOINTMENT}/cancel", data={
        "version": "0", "cancellation_reason": "forged"})
    assert response.status_code == 400
    assert "This form has expired" in response.get_data(as_text=True)
    page = sched.client.get(f"/appointments/{APPOINTMENT}").get_data(as_text=True)
    assert "forged" not in page



def test_reschedule_offers_free_slots_of_the_same_type_and_provider(sched: Web) -> None:
    from datetime import UTC, datetime, timedelta

    from app.api import models as m
    from tests.factories import make_shift

    start = datetime(2027, 2, 2, 14, 0, tzinfo=UTC)  # 9 AM in New York
    with sched.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        nurse = session.get(m.Provider, uid("user:ed.nurse1@example.com"))
        make_shift(session, provider=nurse, team=session.get(m.Team, uid("team:Emergency")),
                   role=session.get(m.Role, uid("role:Emergency:Registered Nurse")),
                   start=start, hours=8, break_at=None)
        booked = m.Appointment(type="Follow-up", appointment_type_id=uid("atype:follow"),
                               status="upcoming", provider_id=nurse.id, member_id="M-future",
                               start_date=start, end_date=start + timedelta(minutes=15),
                               location="Room 1")
        session.add(booked)
        session.flush()
        appointment = booked.id
    page = sched.client.get(f"/appointments/{appointment}").get_data(as_text=True)
    link = re.search(r'href="([^"]*/reschedule[^"]*)">Reschedule', page)
    assert link is not None
    assert "type=" in link.group(1)  # the link carries what the slot search needs
    body = sched.client.get(link.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert "Free slots with Ed Nurse 1" in body
    assert re.search(": Tue 2 Feb( 2027)?, 9:15 AM with", body)  # right after its own time
    assert not re.search(": Tue 2 Feb( 2027)?, 9:00 AM with", body)
    plain = sched.client.get(f"/appointments/{appointment}/reschedule").get_data(as_text=True)
    assert plain.count("Move here") == body.count("Move here") > 0  # same without the hints


@pytest.mark.parametrize("tamper", [
    lambda token: token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # altered
    lambda token: "eyJzdGFydERhdGUiOiAiMjAwMC0wMS0wMVQwMDowMDowMCswMDAwIn0=",  # unsigned JSON
    lambda token: "",  # left out
])
def test_version_conflict_with_a_tampered_seen_field_says_so_and_shows_no_made_up_change(
        sched: Web, tamper) -> None:
    stale = sched.client.get(f"/appointments/{APPOINTMENT}/cancel").get_data(as_text=True)
    moved = sched.client.get(f"/appointments/{APPOINTMENT}/reschedule").get_data(as_text=True)
    sched.client.post(f"/appointments/{APPOINTMENT}/reschedule", data={
        "csrf_token": sched.csrf(), "version": hidden(moved, "version"),
        "seen": hidden(moved, "seen"), "provider_id": str(uid("user:doctor@example.com")),
        "day": "2026-03-05", "start_time": "16:00"})
    conflict = sched.client.post(f"/appointments/{APPOINTMENT}/cancel", data={
        "csrf_token": sched.csrf(), "version": hidden(stale, "version"),
        "seen": tamper(hidden(stale, "seen")), "cancellation_reason": "Clash"})
    assert conflict.status_code == 409
    body = conflict.get_data(as_text=True)
    assert "could not tell what you saw before" in body
    assert "2000" not in body  # nothing read from the unsigned token
    assert "Reload the latest version" in body


def test_list_is_cards_with_folded_filters_and_chips(sched: Web) -> None:
    body = sched.client.get("/appointments", query_string={
        "member": "member-003", "start": "2026-03-01", "end": "2026-03-31"}).get_data(
            as_text=True)
    assert '<details class="folded-filters">' in body
    assert body.count(" data-record>") == 1
    chips = body[body.index('aria-label="Active filters"'):]
    chips = chips[:chips.index("</ul>")].replace("&amp;", "&")
    assert "Member id: member-003" in chips
    assert 'href="/appointments?start=2026-03-01&end=2026-03-31&member="' in chips
    assert 'href="/appointments?member=member-003&end=2026-03-31&start="' in chips
    assert 'href="/appointments?start="' in chips  # clear all: not even today's default


def test_chips_come_with_the_fragment(sched: Web) -> None:
    body = sched.client.get("/appointments", query_string={"status": "cancelled"},
                            headers={"HX-Request": "true"}).get_data(as_text=True)
    assert body.lstrip().startswith('<section id="appointment-table"')
    assert "Status: Cancelled" in body
    assert "<details" not in body


def test_first_visit_shows_today_as_a_removable_filter(sched: Web) -> None:
    body = sched.client.get("/appointments").get_data(as_text=True).replace("&amp;", "&")
    assert "From: " in body
    assert 'href="/appointments?start="' in body
    cleared = sched.client.get("/appointments?start=").get_data(as_text=True)
    assert 'aria-label="Active filters"' not in cleared
