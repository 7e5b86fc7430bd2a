"""The people directory and a person's page, as the administrator: search by name (over the
API's 50 characters shown inline, nothing asked), type and status filters kept in the URL,
cursor paging, the provider count; a person's team, manager, roles, skills, licensed regions,
employment type and pay period template; unknown or tampered ids are the not-found page; other
roles neither see the area in the menu nor open it."""

from __future__ import annotations

import io
import re
import uuid
from typing import Any

import pytest
from sqlalchemy import func, select

from app.api import models as m
from app.web.people.views import PAGE_SIZE
from tests.factories import make_provider, uid
from tests.web.conftest import Web

HX = {"HX-Request": "true"}
PEOPLE = "/admin/people"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_directory_lists_providers_with_their_count(aweb: Web):
    response = aweb.client.get(PEOPLE)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    text = _text(html)
    assert "Pat Provider" in text
    assert "Dana Doctor" in text
    assert "Gone Away" not in text  # dismissed: not in the default status
    assert re.search(r"\d+ providers match", text)
    assert "Ada Admin" not in text  # not a provider


def test_directory_fragment_is_the_list_alone(aweb: Web):
    response = aweb.client.get(PEOPLE + "?name=pat", headers=HX)
    body = response.get_data(as_text=True).strip()
    assert body.startswith('<section id="people-list"')
    assert "Pat Provider" in body
    assert "Dana Doctor" not in body
    assert "1 provider matches" in _text(body)
    assert "HX-Request" in response.vary


def test_long_name_is_refused_inline_without_asking_the_api(aweb: Web):
    response = aweb.client.get(PEOPLE + "?name=" + "x" * 51)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "<title>Error:" in html
    assert "at most 50 characters" in html
    assert 'aria-invalid="true"' in html
    assert "Pat Provider" not in html


def test_type_and_status_filters_stay_in_the_url(aweb: Web):
    html = aweb.client.get(PEOPLE + "?type=user&status=any&name=a").get_data(as_text=True)
    text = _text(html)
    assert "Ada Admin" in text
    assert "Morgan Manager" in text
    assert "Payroll export" not in text  # a bot
    assert '<option selected value="user">' in html or 'value="user" selected' in html
    bots = _text(aweb.client.get(PEOPLE + "?type=bot").get_data(as_text=True))
    assert "Payroll export" in bots
    gone = _text(aweb.client.get(PEOPLE + "?status=dismissed").get_data(as_text=True))
    assert "Gone Away" in gone
    assert "Pat Provider" not in gone


def test_tampered_choice_is_an_inline_message(aweb: Web):
    response = aweb.client.get(PEOPLE + "?type=root&status=everything")
    assert response.status_code == 422
    assert "Not a valid choice" in response.get_data(as_text=True)


def test_directory_pages_with_a_cursor(aweb: Web):
    with aweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        if session.get(m.User, uid("user:pager0@example.com")) is None:
            for i in range(PAGE_SIZE + 2):
                make_provider(session, f"pager{i}@example.com", None, f"Pager Person {i:02}")
    first = aweb.client.get(PEOPLE + "?name=pager").get_data(as_text=True)
    found = re.search(r'<a href="([^"]+)">Next page</a>', first)
    assert found
    url = found.group(1).replace("&amp;", "&")
    assert "name=pager" in url
    assert "cursor=" in url
    assert f"{PAGE_SIZE + 2} providers match" in _text(first)
    second = aweb.client.get(url).get_data(as_text=True)
    names = lambda html: re.findall(r'id="person-[^"]+"', html)  # noqa: E731
    assert names(second)
    assert not set(names(first)) & set(names(second))
    assert "First page" in second


def test_tampered_cursor_goes_back_to_the_first_page(aweb: Web):
    response = aweb.client.get(PEOPLE + "?name=nurse&cursor=forged")
    assert response.status_code == 303
    assert response.headers["Location"] == PEOPLE + "?name=nurse"


def test_person_page_shows_a_providers_details(aweb: Web):
    html = aweb.client.get(f"{PEOPLE}/{uid('user:provider@example.com')}").get_data(as_text=True)
    text = _text(html)
    for expected in ["Pat Provider", "Team Emergency", "Manager Morgan Manager",
                     "language: Spanish", "certification: ACLS", "Licensed regions NY",
                     "Employment type Full-time staff", "Pay period template Every two weeks"]:
        assert expected in text, expected
    assert "Roles Registered Nurse" in text or "Roles " in text


def test_person_page_says_none_for_someone_who_is_not_a_provider(aweb: Web):
    text = _text(aweb.client.get(f"{PEOPLE}/{uid('user:manager@example.com')}")
                 .get_data(as_text=True))
    assert "Morgan Manager" in text
    assert "only providers have a team" in text


@pytest.mark.parametrize("tail", ["00000000-0000-0000-0000-000000000000", "not-an-id",
                                  "1%27%20or%201=1"])
def test_unknown_or_tampered_person_is_not_found(aweb: Web, tail: str):
    response = aweb.client.get(f"{PEOPLE}/{tail}")
    assert response.status_code == 404
    assert "<html" in response.get_data(as_text=True)


@pytest.mark.parametrize("email", ["manager@example.com", "provider@example.com",
                                   "scheduler@example.com"])
def test_other_roles_may_not_open_the_directory(make_web, email: str):
    web = make_web()
    web.sign_in(email)
    assert web.client.get(PEOPLE).status_code == 403
    assert "/admin/people" not in web.client.get("/").get_data(as_text=True)


# -- importing people ---------------------------------------------------------------------------

IMPORT = "/admin/people/import"
HEADER = "name,email,type,team,role,employment_type,pay_period,pay_period_start,imported_id\n"


def _csv(*rows: str) -> str:
    return HEADER + "".join(row + "\n" for row in rows)


def _post_file(web: Web, content: str, name: str = "people.csv", **headers: str) -> Any:
    return web.client.post(IMPORT, data={
        "csrf_token": web.csrf(), "file": (io.BytesIO(content.encode()), name)},
        content_type="multipart/form-data", headers=headers)


def _people_count(web: Web) -> int:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(m.User)) or 0


def test_import_page_shows_the_form_columns_and_names(aweb: Web):
    response = aweb.client.get(IMPORT)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'id="people-import"' in html
    assert "imported_id" in html
    assert "Registered Nurse" in html
    template = aweb.client.get(IMPORT + "/template.csv")
    assert template.mimetype == "text/csv"
    assert template.get_data(as_text=True).startswith(HEADER.strip())


def test_bad_rows_are_listed_and_no_one_is_imported(aweb: Web):
    before = _people_count(aweb)
    tag = uuid.uuid4().hex[:8]
    content = _csv(
        f"Good One,good.{tag}@example.org,provider,Emergency,Registered Nurse,Per diem,weekly,"
        f"2026-01-05,G-{tag}",
        f"No Team,noteam.{tag}@example.org,provider,Nowhere,,,,,N-{tag}",
        f"Bad Mail,not-an-email,user,,,,,,M-{tag}",
        f"User Team,ut.{tag}@example.org,user,Emergency,,,,,U-{tag}",
        f"Twice,twice.{tag}@example.org,provider,,,,,,G-{tag}",
        f"Far,far.{tag}@example.org,provider,,,,weekly,9999-01-05,F-{tag}",
        f"Early,early.{tag}@example.org,provider,,,,weekly,0001-01-01,E-{tag}")
    response = _post_file(aweb, content)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    text = _text(html)
    assert "No one was added or changed" in text
    assert "No team named “Nowhere”" in text
    assert "not an email address" in text
    assert "Only providers have this" in text
    assert "Row 1 has the same imported id" in text
    assert "9999-01-05 is too far away" in text
    assert "0001-01-01 is too far away" in text
    assert _people_count(aweb) == before


def test_import_then_again_updates_without_duplicates(aweb: Web):
    tag = uuid.uuid4().hex[:8]
    content = _csv(
        f"Nia Import,nia.{tag}@example.org,provider,Emergency,Registered Nurse,Full-time staff,"
        f"biweekly,2026-01-05,A-{tag}",
        f"Omar Import,omar.{tag}@example.org,user,,,,,,B-{tag}")
    before = _people_count(aweb)
    first = _post_file(aweb, content)
    assert first.status_code == 303
    result = aweb.client.get(first.headers["Location"]).get_data(as_text=True)
    assert "2 people added, 0 updated" in _text(result)
    links = re.findall(r'value="(http://testserver/auth/set-password/[^"]+)"', result)
    assert len(links) == 2
    assert _people_count(aweb) == before + 2
    again = _post_file(aweb, content.replace("Nia Import", "Nia Renamed"))
    second = _text(aweb.client.get(again.headers["Location"]).get_data(as_text=True))
    assert "0 people added, 2 updated" in second
    assert "Nia Renamed" in second
    assert _people_count(aweb) == before + 2
    people_csv = aweb.client.get(again.headers["Location"] + "/people.csv")
    assert "Nia Renamed" in people_csv.get_data(as_text=True)


def test_import_with_htmx_goes_in_steps_to_the_result(aweb: Web):
    tag = uuid.uuid4().hex[:8]
    content = _csv(f"Step Person,step.{tag}@example.org,user,,,,,,S-{tag}")
    response = _post_file(aweb, content, **{"HX-Request": "true", "X-CSRF-Token": aweb.csrf()})
    body = response.get_data(as_text=True).strip()
    assert response.status_code == 200
    assert body.startswith('<section id="people-import"')
    found = re.search(r'hx-post="([^"]+)" hx-trigger="load"', body)
    assert found
    step = aweb.client.post(found.group(1), headers={"HX-Request": "true",
                                                     "X-CSRF-Token": aweb.csrf()})
    assert "1 person added, 0 updated" in _text(step.get_data(as_text=True))
    repeat = aweb.client.post(found.group(1), headers={"HX-Request": "true",
                                                       "X-CSRF-Token": aweb.csrf()})
    assert "1 person added, 0 updated" in _text(repeat.get_data(as_text=True))  # sent once


def test_email_of_someone_else_ends_the_import_with_the_row(aweb: Web):
    tag = uuid.uuid4().hex[:8]
    content = _csv(f"Clash,manager@example.com,user,,,,,,C-{tag}")
    response = _post_file(aweb, content)
    page = _text(aweb.client.get(response.headers["Location"]).get_data(as_text=True))
    assert "was not imported completely" in page
    assert "Another person already has this email" in page


def test_not_a_csv_is_refused_on_the_field(aweb: Web):
    response = _post_file(aweb, "x", name="people.txt")
    assert response.status_code == 422
    assert "is not a CSV file" in response.get_data(as_text=True)
    header = _post_file(aweb, "who,what\n1,2\n")
    assert header.status_code == 422
    assert "it lacks" in header.get_data(as_text=True)


def test_unknown_import_token_says_so(aweb: Web):
    response = aweb.client.get("/admin/people/imports/nothing-here")
    assert response.status_code == 404
    assert "no longer in progress" in response.get_data(as_text=True)


def test_person_page_makes_a_set_password_link_shown_once(aweb: Web):
    person = f"{PEOPLE}/{uid('user:icu.nurse1@example.com')}"
    response = aweb.client.post(person + "/password-link", data={"csrf_token": aweb.csrf()})
    assert response.status_code == 303
    html = aweb.client.get(person).get_data(as_text=True)
    assert re.search(r'value="http://testserver/auth/set-password/[^"]+"', html)
    assert "Create a set-password link" in html
    later = aweb.client.get(person).get_data(as_text=True)
    assert "/auth/set-password/" not in later


def test_password_link_for_a_bot_is_a_message(aweb: Web):
    person = f"{PEOPLE}/{uid('user:bot@example.com')}"
    response = aweb.client.post(person + "/password-link", data={"csrf_token": aweb.csrf()})
    assert response.status_code == 303
    assert "Only people who may sign in" in aweb.client.get(person).get_data(as_text=True)


def test_a_file_over_the_limit_is_refused_on_the_form(make_web):
    web = make_web(max_upload_bytes=300)
    web.sign_in("admin@example.com")
    rows = [f"Big {n},big.{n}@example.org,user,,,,,,BIG-{n}" for n in range(40)]
    response = web.client.post(IMPORT, data={
        "csrf_token": web.csrf(), "file": (io.BytesIO(_csv(*rows).encode()), "big.csv")},
        content_type="multipart/form-data")
    assert response.status_code in (413, 422)
    assert "larger than" in response.get_data(as_text=True)
