"""Appointment types through the test client as the scheduler: list, create with the skill
requirement rows, validation on the right fields, edit, archive (then no longer offered)."""

from __future__ import annotations

from tests.factories import uid
from tests.web.conftest import Web

ED_DOCTOR = str(uid("role:Emergency:Physician"))


def test_list_shows_types_with_roles_and_skills(sched: Web) -> None:
    body = sched.client.get("/appointment-types").get_data(as_text=True)
    assert "New patient visit" in body
    assert "Physician (Emergency)" in body
    assert "language: French" in body
    assert "Retired visit" not in body
    assert "New appointment type" in body


def test_create_with_groups_makes_an_and_of_ors(sched: Web) -> None:
    response = sched.client.post("/appointment-types", data={
        "csrf_token": sched.csrf(), "name": "Interpreter visit", "length": "45",
        "allowed_roles": [ED_DOCTOR],
        "group_1": ["language=French", "language=Spanish"], "group_2": ["certification=ACLS"]})
    assert response.status_code == 303
    body = sched.client.get("/appointment-types").get_data(as_text=True)
    assert "Interpreter visit" in body
    assert "(language: French or language: Spanish) and certification: ACLS" in body


def test_create_shows_problems_on_the_fields(sched: Web) -> None:
    response = sched.client.post("/appointment-types", data={
        "csrf_token": sched.csrf(), "name": "X", "length": "2"})
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert 'id="name-error"' in body
    assert 'id="length-error"' in body
    assert "Between 5 and 1440 minutes." in body
    assert "<title>Error:" in body


def test_create_with_an_unknown_role_is_inline(sched: Web) -> None:
    response = sched.client.post("/appointment-types", data={
        "csrf_token": sched.csrf(), "name": "Odd", "length": "30",
        "allowed_roles": [str(uid("role:nowhere"))]})
    assert response.status_code == 422
    assert 'id="allowed_roles-error"' in response.get_data(as_text=True)


def test_edit_loads_the_rows_and_saves(sched: Web) -> None:
    page = sched.client.get(f"/appointment-types/{uid('atype:new')}/edit").get_data(as_text=True)
    assert 'value="language=French" checked' in page
    response = sched.client.post(f"/appointment-types/{uid('atype:new')}", data={
        "csrf_token": sched.csrf(), "name": "New patient visit", "length": "40",
        "allowed_roles": [ED_DOCTOR], "group_1": ["language=French"]})
    assert response.status_code == 303
    assert "40m" in sched.client.get("/appointment-types").get_data(as_text=True)


def test_archive_removes_the_type_from_slot_search(sched: Web) -> None:
    follow = uid("atype:follow")
    confirm = sched.client.get(f"/appointment-types/{follow}/archive").get_data(as_text=True)
    assert "Archive “Follow-up”?" in confirm
    response = sched.client.post(f"/appointment-types/{follow}/archive",
                                 data={"csrf_token": sched.csrf()})
    assert response.status_code == 303
    assert "Follow-up" not in sched.client.get("/slots").get_data(as_text=True)


def test_staff_who_may_not_edit_types_see_no_edit_links(sched: Web) -> None:
    sched.sign_in("provider@example.com")
    body = sched.client.get("/appointment-types").get_data(as_text=True)
    assert "New patient visit" in body
    assert "New appointment type" not in body
    assert "/archive" not in body
