"""Importing people (POST /v1/people/import) and set-password links
(POST /v1/users/{userId}/password-link), on SQLite and PostgreSQL: create, a second import
updates and never duplicates, bad rows answered with every path and nothing written, e-mail
clashes, permissions, and links that work once and expire."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.api import models as m
from app.api.services.people_import import hash_password_token
from tests.factories import uid

IMPORT = "/v1/people/import"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def person(n: int, kind: str = "provider", **extra: Any) -> dict[str, Any]:
    """Row `n` of an import."""
    return {"name": f"Imported Person {n}", "email": f"imported{n}@example.org", "type": kind,
            "importedId": f"EXT-{n}", **extra}


def provider_row(world: Any, n: int, **extra: Any) -> dict[str, Any]:
    """A provider of the Emergency team with its nurse role and full-time employment."""
    return person(n, teamId=str(world.ed), roleId=str(world.ed_nurse_role),
                  employmentTypeId=str(uid("et:ft")),
                  payPeriodTemplate={"type": "weekly", "startDate": "2026-01-05T05:00:00Z"},
                  **extra)


def people_count(api: Any) -> int:
    with api.db.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(m.User)) or 0


def test_import_people_creates_users_and_providers_with_links(fresh_api, world):
    before = people_count(fresh_api)
    body = [provider_row(world, 1), person(2, "user")]
    response = fresh_api.post(IMPORT, json=body)
    assert response.status_code == 200, response.get_json()
    answer = response.get_json()
    assert (answer["created"], answer["updated"]) == (2, 0)
    assert [p["outcome"] for p in answer["people"]] == ["created", "created"]
    assert all(p["passwordLink"]["token"] for p in answer["people"])
    assert people_count(fresh_api) == before + 2
    first = answer["people"][0]["id"]
    provider = fresh_api.get(f"/v1/providers/{first}").get_json()
    assert provider["team"]["name"] == "Emergency"
    assert provider["importedId"] == "EXT-1"
    assert provider["payPeriodTemplate"]["type"] == "weekly"
    assert [r["id"] for r in provider["roles"]] == [str(world.ed_nurse_role)]
    assert provider["manager"] is not None
    user = fresh_api.get(f"/v1/users/{answer['people'][1]['id']}").get_json()
    assert (user["name"], user["email"], user["type"]) == (
        "Imported Person 2", "imported2@example.org", "user")
    with fresh_api.db.unit_of_work() as session:
        stored = session.scalars(select(m.PasswordSetToken.token_hash)).all()
    token = answer["people"][0]["passwordLink"]["token"]
    assert hash_password_token(token) in stored
    assert token not in stored  # only the hash is kept


def test_importing_the_same_rows_again_updates_and_never_duplicates(fresh_api, world):
    body = [provider_row(world, 1), person(2, "user")]
    first = fresh_api.post(IMPORT, json=body).get_json()
    count = people_count(fresh_api)
    body[0]["name"] = "Renamed Person"
    body[1]["email"] = "NEW.address@example.org"
    second = fresh_api.post(IMPORT, json=body)
    assert second.status_code == 200, second.get_json()
    answer = second.get_json()
    assert (answer["created"], answer["updated"]) == (0, 2)
    assert [p["id"] for p in answer["people"]] == [p["id"] for p in first["people"]]
    assert all(p["passwordLink"] is None for p in answer["people"])
    assert people_count(fresh_api) == count
    assert fresh_api.get(f"/v1/providers/{answer['people'][0]['id']}").get_json()["name"] == \
        "Renamed Person"
    assert fresh_api.get(f"/v1/users/{answer['people'][1]['id']}").get_json()["email"] == \
        "new.address@example.org"


def test_import_matches_a_provider_by_their_own_imported_id(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        session.execute(update(m.Provider).where(m.Provider.id == world.provider)
                        .values(imported_id="HR-1"))
    row = provider_row(world, 9, importedId="HR-1", email="provider@example.com",
                       name="Pat Provider")
    answer = fresh_api.post(IMPORT, json=[row]).get_json()
    assert answer["updated"] == 1
    assert answer["people"][0]["id"] == str(world.provider)


def test_bad_rows_are_all_reported_and_nothing_is_written(fresh_api, world):
    before = people_count(fresh_api)
    body = [
        provider_row(world, 1),
        person(2, "user", teamId=str(world.ed)),
        person(3, teamId="00000000-0000-0000-0000-000000000001"),
        person(4, teamId=str(world.icu), roleId=str(world.ed_nurse_role)),
        person(5, roleId=str(world.ed_nurse_role)),
        {**person(6), "importedId": "EXT-1"},
        {**person(7), "email": "IMPORTED1@example.org"},
    ]
    response = fresh_api.post(IMPORT, json=body)
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    problem = response.get_json()
    assert problem["path"] == "/1/teamId"
    assert [e["path"] for e in problem["errors"]] == [
        "/1/teamId", "/2/teamId", "/3/roleId", "/4/teamId", "/5/importedId", "/6/email"]
    assert people_count(fresh_api) == before


@pytest.mark.parametrize(("row", "path"), [
    ({"name": "", "email": "a@example.org", "type": "user", "importedId": "X"}, "/0/name"),
    ({"name": "A", "email": "not-an-email", "type": "user", "importedId": "X"}, "/0/email"),
    ({"name": "A", "email": "a@example.org", "type": "robot", "importedId": "X"}, "/0/type"),
    ({"name": "A", "email": "a@example.org", "type": "user"}, "/0/importedId"),
    ({"name": "A", "email": "a@example.org", "type": "user", "importedId": "X" * 101},
     "/0/importedId"),
    ({"name": "A", "email": "a@example.org", "type": "provider", "importedId": "X",
      "teamId": "nope"}, "/0/teamId"),
])
def test_malformed_rows_are_validation_problems(api, row, path):
    response = api.post(IMPORT, json=[row])
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert path in [e["path"] for e in response.get_json()["errors"]]


def test_email_of_another_person_is_email_in_use(fresh_api, world):
    before = people_count(fresh_api)
    body = [provider_row(world, 1), person(2, "user", email="Manager@Example.com")]
    response = fresh_api.post(IMPORT, json=body)
    assert response.status_code == 409
    assert problem_code(response) == "email-in-use"
    assert [e["path"] for e in response.get_json()["errors"]] == ["/1/email"]
    assert people_count(fresh_api) == before


def test_type_of_an_imported_person_does_not_change(fresh_api, world):
    fresh_api.post(IMPORT, json=[person(2, "user")])
    response = fresh_api.post(IMPORT, json=[person(2, "provider")])
    assert response.status_code == 400
    assert response.get_json()["path"] == "/0/type"


def test_import_refuses_batch_over_limit(api):
    response = api.post(IMPORT, json=[person(n, "user") for n in range(1001)])
    assert response.status_code == 400
    assert problem_code(response) == "batch-size-exceeded"
    assert response.get_json()["maxBatchSize"] == 1000


def test_empty_import_does_nothing(api):
    response = api.post(IMPORT, json=[])
    assert response.status_code == 200
    assert response.get_json() == {"created": 0, "updated": 0, "people": []}


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com",
                                  "scheduler@example.com"])
def test_only_administrators_import(api, user):
    response = api.post(IMPORT, json=[{"nonsense": True}], user=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_import_needs_a_token(api):
    assert api.post(IMPORT, json=[], user=None).status_code == 401


# -- set-password links -------------------------------------------------------------------------

def link_of(api: Any, user_id: Any, **kw: Any) -> Any:
    return api.post(f"/v1/users/{user_id}/password-link", **kw)


def test_password_link_is_new_each_time_and_ends_the_earlier_ones(fresh_api, world):
    first = link_of(fresh_api, world.provider)
    assert first.status_code == 201, first.get_json()
    second = link_of(fresh_api, world.provider).get_json()
    link = first.get_json()
    assert link["userId"] == str(world.provider)
    assert link["token"] != second["token"]
    expires = datetime.strptime(second["expiresAt"], "%Y-%m-%dT%H:%M:%S%z")
    assert timedelta(days=6, hours=23) < expires - datetime.now(UTC) <= timedelta(days=7)
    with fresh_api.db.unit_of_work() as session:
        rows = {t.token_hash: t for t in session.scalars(select(m.PasswordSetToken))}
    assert rows[hash_password_token(link["token"])].used_at is not None  # ended
    assert rows[hash_password_token(second["token"])].used_at is None


@pytest.mark.parametrize(("who", "status", "code"), [
    ("bot@example.com", 409, "invalid-state-transition"),
    ("gone@example.com", 409, "invalid-state-transition"),
])
def test_password_link_refuses_who_cannot_sign_in(fresh_api, who, status, code):
    response = link_of(fresh_api, uid(f"user:{who}"))
    assert response.status_code == status
    assert problem_code(response) == code


def test_password_link_of_unknown_user_is_not_found(api):
    response = link_of(api, "00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert problem_code(response) == "user-not-found"
    assert link_of(api, "not-an-id").status_code == 400


@pytest.mark.parametrize("user", ["manager@example.com", "provider@example.com"])
def test_only_administrators_make_password_links(api, world, user):
    response = link_of(api, world.provider, user=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "the page has no form"
    return found.group(1)


def _choose(browser: Any, token: str, password: str, again: str | None = None) -> Any:
    page = browser.get(f"/auth/set-password/{token}")
    assert page.status_code == 200, page.get_data(as_text=True)
    return browser.post(f"/auth/set-password/{token}", data={
        "csrf_token": _csrf(page.get_data(as_text=True)), "password": password,
        "password_again": password if again is None else again})


def _sign_in(browser: Any, email: str, password: str) -> Any:
    page = browser.get("/auth/signin")
    return browser.post("/auth/signin", data={
        "csrf_token": _csrf(page.get_data(as_text=True)), "email": email, "password": password})


def test_imported_person_sets_a_password_once_then_signs_in(fresh_api, world):
    answer = fresh_api.post(IMPORT, json=[provider_row(world, 1)]).get_json()
    token = answer["people"][0]["passwordLink"]["token"]
    browser = fresh_api.app.test_client()
    page = browser.get(f"/auth/set-password/{token}").get_data(as_text=True)
    assert "Imported Person 1" in page
    short = _choose(browser, token, "short")
    assert short.status_code == 422
    assert "at least 10 characters" in short.get_data(as_text=True)
    differ = _choose(browser, token, "a long enough secret", "another long secret")
    assert differ.status_code == 422
    assert "not the same" in differ.get_data(as_text=True)
    done = _choose(browser, token, "a long enough secret")
    assert done.status_code == 200
    assert "Your password is set" in done.get_data(as_text=True)
    signed_in = _sign_in(fresh_api.app.test_client(), "imported1@example.org",
                         "a long enough secret")
    assert signed_in.status_code == 303
    again = fresh_api.app.test_client().get(f"/auth/set-password/{token}")
    assert again.status_code == 410
    assert "has been used" in again.get_data(as_text=True)


def test_expired_or_replaced_or_unknown_links_do_not_work(fresh_api, world):
    old = link_of(fresh_api, world.provider).get_json()["token"]
    new = link_of(fresh_api, world.provider).get_json()["token"]
    browser = fresh_api.app.test_client()
    assert browser.get(f"/auth/set-password/{old}").status_code == 410  # replaced
    with fresh_api.db.unit_of_work(write=True) as session:
        session.execute(update(m.PasswordSetToken)
                        .where(m.PasswordSetToken.token_hash == hash_password_token(new))
                        .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    expired = browser.get(f"/auth/set-password/{new}")
    assert expired.status_code == 410
    assert "has expired" in expired.get_data(as_text=True)
    unknown = browser.get("/auth/set-password/" + "x" * 43)
    assert unknown.status_code == 404
    assert browser.get("/auth/set-password/" + "x" * 500).status_code == 404


def test_a_link_posted_after_it_expired_sets_nothing(fresh_api, world):
    token = link_of(fresh_api, world.provider).get_json()["token"]
    browser = fresh_api.app.test_client()
    page = browser.get(f"/auth/set-password/{token}").get_data(as_text=True)
    with fresh_api.db.unit_of_work(write=True) as session:
        session.execute(update(m.PasswordSetToken).values(
            expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    response = browser.post(f"/auth/set-password/{token}", data={
        "csrf_token": _csrf(page), "password": "a long enough secret",
        "password_again": "a long enough secret"})
    assert response.status_code == 410
    with fresh_api.db.unit_of_work() as session:
        assert session.get(m.User, world.provider).password_hash is None


def test_the_same_import_sent_twice_at_once_creates_each_person_once(fresh_api, world):
    before = people_count(fresh_api)
    body = [provider_row(world, n) for n in range(1, 6)]
    answers = fresh_api.race([("POST", IMPORT, "admin@example.com", body)] * 2)
    assert sorted(r.status_code for r in answers) == [200, 200], [r.get_json() for r in answers]
    created = sorted(r.get_json()["created"] for r in answers)
    assert created == [0, 5]
    assert people_count(fresh_api) == before + 5
