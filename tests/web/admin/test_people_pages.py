"""The people directory and a person's page, as the administrator: search by name (over the
API's 50 characters shown inline, nothing asked), type and status filters kept in the URL,
cursor paging, the provider count; a person's team, manager, roles, skills, licensed regions,
employment type and pay period template; unknown or tampered ids are the not-found page; other
roles neither see the area in the menu nor open it."""

from __future__ import annotations

import re

import pytest

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
