"""The permission pages (beta): the rules as a table with a subject filter, and one rule's
conditions editor: text that is not JSON marked at its line, the API's validation path marked
on its line, a preview for a person (today against the proposed conditions), and saving what
was previewed. Other roles neither see the pages in the menu nor open them.

Saving writes, so those tests run on their own copy of the seeded database.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.api import models as m
from tests.factories import World
from tests.web.conftest import Web, build_web

HX = {"HX-Request": "true"}
LIST = "/admin/permissions"
ADMIN = "admin@example.com"


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.fixture
def pweb(web_db: tuple[str, World], signing_key_path: Path, tmp_path: Path) -> Iterator[Web]:
    """An app on its own copy of the seeded database, signed in as the administrator."""
    url, world = web_db
    target = tmp_path / "perms.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), target)
    web = build_web((f"sqlite:///{target}", world), signing_key_path, tmp_path / "sessions")
    web.sign_in(ADMIN)
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


def _rule(web: Web, role: str, action: str, subject: str) -> m.Permission:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        rule = session.scalars(
            select(m.Permission).join(m.RbacRole)
            .where(m.RbacRole.name == role, m.Permission.action == action,
                   m.Permission.subject == subject)).one()
        session.expunge(rule)
        return rule


def _manager_team_shifts(web: Web, *, open_only: bool = False) -> int:
    world = web.world
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        statement = select(func.count()).select_from(m.Shift).where(m.Shift.team_id == world.ed)
        if open_only:
            statement = statement.where(m.Shift.provider_id.is_(None))
        return int(session.scalar(statement))


def _post(web: Web, url: str, conditions: str, *, headers: dict[str, str] | None = None,
          **extra: str) -> tuple[int, str]:
    data = {"csrf_token": web.csrf(), "conditions": conditions,
            "user_id": str(web.world.manager), "user_search": "", **extra}
    response = web.client.post(url, data=data, headers=headers or {})
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize("email", ["manager@example.com", "provider@example.com",
                                   "scheduler@example.com"])
def test_permissions_are_not_in_the_menu_and_not_allowed_for_other_roles(pweb: Web, email):
    rule = _rule(pweb, "Manager", "view", "Shift")
    pweb.sign_in(email)
    assert LIST not in pweb.client.get("/").get_data(as_text=True)
    for url in (LIST, f"{LIST}/{rule.id}"):
        assert pweb.client.get(url).status_code == 403, url
    for url in (f"{LIST}/{rule.id}", f"{LIST}/{rule.id}/preview"):
        posted = pweb.client.post(url, data={"csrf_token": pweb.csrf(), "conditions": "null"})
        assert posted.status_code == 403, url


def test_menu_offers_permissions_to_the_administrator(pweb: Web):
    html = pweb.client.get("/").get_data(as_text=True)
    assert f'href="{LIST}"' in html
    assert "(beta)" in html


def test_list_shows_each_rule_with_its_role_and_conditions_in_words(pweb: Web):
    page = pweb.client.get(LIST, query_string={"subject": "Shift"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    rows = re.findall(r"<tr id=\"permission-[^\"]+\" data-record>(.*?)</tr>", html, re.S)
    texts = [_text(r) for r in rows]
    assert any(t.startswith("Manager View Shift team is one of my teams") for t in texts), texts
    assert any(t.startswith("Provider View Shift provider is me (as a provider)")
               for t in texts), texts
    assert all(" Shift " in t for t in texts)
    assert "Admin Any action on Shift Every record" in " | ".join(texts)


def test_list_filter_swaps_the_list_alone_for_htmx(pweb: Web):
    page = pweb.client.get(LIST, query_string={"subject": "TimeOffRequest"}, headers=HX)
    html = page.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="permission-list"')
    assert "HX-Request" in page.headers["Vary"]
    assert "TimeOffRequest" in html
    assert " Shift<" not in html


def test_list_refuses_an_unknown_subject_and_a_stale_cursor_politely(pweb: Web):
    assert pweb.client.get(LIST, query_string={"subject": "x" * 51}).status_code == 303
    stale = pweb.client.get(LIST, query_string={"cursor": "nonsense"})
    assert stale.status_code == 303


def test_editor_shows_the_rule_and_its_conditions(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    page = pweb.client.get(f"{LIST}/{rule.id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    text = _text(html)
    assert "Manager: View Shift" in text
    assert "Conditions now team is one of my teams" in text
    assert json.loads(re.search(r"<textarea[^>]*>(.*?)</textarea>", html, re.S).group(1)
                      .replace("&#34;", '"').replace("&quot;", '"')) == rule.conditions
    assert "Morgan Manager" in text  # a manager to preview for
    assert "Save these conditions" not in text  # saving comes after a preview


def test_preview_address_opened_again_leads_to_the_editor(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    again = pweb.client.get(f"{LIST}/{rule.id}/preview")
    assert again.status_code == 303
    assert again.headers["Location"].endswith(f"{LIST}/{rule.id}")


def test_editor_answers_not_found_for_an_unknown_rule(pweb: Web):
    assert pweb.client.get(f"{LIST}/{uuid.uuid4()}").status_code == 404
    posted = pweb.client.post(f"{LIST}/{uuid.uuid4()}/preview",
                              data={"csrf_token": pweb.csrf(), "conditions": "null"})
    assert posted.status_code == 303
    assert posted.headers["Location"].endswith(LIST)


def test_preview_marks_text_that_is_not_json_at_its_line(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", '{\n  "team": ,\n}')
    assert status == 422
    assert "<title>Error:" in html
    assert 'aria-invalid="true"' in html
    assert "This is not JSON: line 2, column 11" in _text(html)
    bad = re.search(r'<li class="perm-line perm-line-bad" id="conditions-line-2">(.*?)</li>',
                    html, re.S)
    assert bad is not None
    assert "<mark>" in bad.group(1)


def test_preview_marks_the_line_of_the_apis_validation_path(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    conditions = json.dumps({"team": {"$in": "$user.teamIds"}, "nope": 1}, indent=2)
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", conditions)
    assert status == 422
    assert 'aria-describedby="conditions-hint conditions-error"' in html
    assert "At /nope: unknown field" in _text(html)
    bad = re.findall(r'<li class="perm-line perm-line-bad" id="conditions-line-(\d+)">(.*?)</li>',
                     html, re.S)
    assert [n for n, _ in bad] == ["5"]
    assert "&#34;nope&#34;: 1" in bad[0][1] or '"nope": 1' in bad[0][1]
    assert "Save these conditions" not in html


def test_preview_compares_today_with_the_proposed_conditions(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    conditions = json.dumps({"team": {"$in": "$user.teamIds"}, "provider": None})
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", conditions)
    assert status == 200
    text = _text(html)
    team, open_ = _manager_team_shifts(pweb), _manager_team_shifts(pweb, open_only=True)
    assert f"Today\u2019s conditions {team}" in text
    assert f"These conditions {open_}" in text
    assert f"Warning: Morgan Manager would lose {team - open_} Shift records" in text
    assert "Save these conditions" in text


def test_preview_warns_loudly_when_nothing_is_left(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", '{"id": null}',
                         headers=HX)
    assert status == 200
    assert html.lstrip().startswith('<section id="permission-editor"')
    assert "could view no Shift records at all" in _text(html)
    assert 'role="alert"' in html


def test_find_lists_people_by_name(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", "null", find="1",
                         user_search="Pat")
    assert status == 200
    options = re.findall(r"<option[^>]*>([^<]+)</option>", html)
    assert options == ["Pat Provider"]
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", "null", find="1",
                         user_search="x" * 51)
    assert status == 422
    assert "Use at most 50 characters." in html


def test_preview_for_an_unknown_person_says_so_on_the_picker(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", "null", user_id=str(uuid.uuid4()))
    assert status == 422
    assert "There is no such person" in html
    status, html = _post(pweb, f"{LIST}/{rule.id}/preview", "null", user_id="tampered")
    assert status == 422
    assert "Choose a person from the list." in html


def test_save_first_previews_changed_conditions_then_saves_them(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    conditions = {"team": {"$in": "$user.teamIds"}, "provider": None}
    status, html = _post(pweb, f"{LIST}/{rule.id}", json.dumps(conditions))
    assert status == 200
    assert "Check what this change does before saving" in _text(html)
    assert _rule(pweb, "Manager", "view", "Shift").conditions == rule.conditions
    previewed = re.search(r'name="previewed" type="hidden" value="([^"]*)"', html)
    assert previewed is not None
    fingerprint = previewed.group(1).replace("&#34;", '"').replace("&quot;", '"')
    response = pweb.client.post(f"{LIST}/{rule.id}", data={
        "csrf_token": pweb.csrf(), "conditions": json.dumps(conditions, indent=4),
        "user_id": str(pweb.world.manager), "previewed": fingerprint})
    assert response.status_code == 303
    assert _rule(pweb, "Manager", "view", "Shift").conditions == conditions
    page = pweb.client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Saved. The Manager rule\u2019s new conditions apply" in _text(page)
    assert "Conditions now team is one of my teams and provider is empty" in _text(page)


def test_save_of_a_tampered_fingerprint_still_goes_through_the_api_checks(pweb: Web):
    rule = _rule(pweb, "Manager", "view", "Shift")
    status, html = _post(pweb, f"{LIST}/{rule.id}", '{"nope": 1}',
                         previewed='{"nope":1}')
    assert status == 422
    assert "At /nope: unknown field" in _text(html)
    assert _rule(pweb, "Manager", "view", "Shift").conditions == rule.conditions
