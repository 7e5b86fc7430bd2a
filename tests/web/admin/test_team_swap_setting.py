"""The teams settings page: each team says whether its accepted shift swaps wait for a manager,
and an administrator changes that with one button per team. The button sends the value it sets
(sending it twice changes nothing more); a tampered value, an unknown team or a user who may
not edit teams gets a message or a refusal, never a changed team or an error page.

The administrator's database is shared by the worker's tests: each test puts the team back.
"""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Iterator

import pytest

from app.api import models as m
from tests.web.conftest import Web

TEAMS = "/admin/settings/teams"
WAITS = "Wait for a manager's approval"
AT_ONCE = "Hand over when accepted, without a manager"


def _text(page: str) -> str:
    """What a reader sees of `page`: tags dropped, entities read, spaces collapsed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))).strip()


def _needs_approval(web: Web, team: uuid.UUID) -> bool:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return session.get(m.Team, team).swaps_need_approval


def _set(web: Web, team: uuid.UUID, value: str, **extra: str):
    return web.client.post(f"{TEAMS}/{team}/swaps", data={
        "csrf_token": web.csrf(), "swaps_need_approval": value, **extra})


def _card(html: str, name: str) -> str:
    cards = [_text(card) for card in re.findall(r'<li class="record-card".*?</li>', html, re.S)]
    return next(card for card in cards if card.startswith(name))


@pytest.fixture
def icu(aweb: Web) -> Iterator[uuid.UUID]:
    """The Intensive Care team, its swaps waiting for a manager again afterwards."""
    team = aweb.world.icu
    yield team
    with aweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        session.get(m.Team, team).swaps_need_approval = True


def test_the_administrator_hands_swaps_over_without_a_manager_and_back(aweb: Web, icu) -> None:
    page = aweb.client.get(TEAMS).get_data(as_text=True)
    assert f"Shift swaps {WAITS}" in _card(page, "Intensive Care")
    assert "Stop asking a manager in Intensive Care" in _card(page, "Intensive Care")

    response = _set(aweb, icu, "false")
    assert (response.status_code, response.headers["Location"]) == (303, TEAMS)
    assert _needs_approval(aweb, icu) is False
    page = aweb.client.get(TEAMS).get_data(as_text=True)
    assert ("Intensive Care: accepted shift swaps now hand the shifts over at once, without a "
            "manager.") in _text(page)
    card = _card(page, "Intensive Care")
    assert f"Shift swaps {AT_ONCE}" in card
    assert "Ask a manager to approve in Intensive Care" in card

    assert _set(aweb, icu, "false").status_code == 303  # sent twice: still off
    assert _needs_approval(aweb, icu) is False
    assert _set(aweb, icu, "true").status_code == 303
    assert _needs_approval(aweb, icu) is True
    assert "Intensive Care: accepted shift swaps now wait for a manager's approval." in _text(
        aweb.client.get(TEAMS).get_data(as_text=True))


def test_the_form_goes_back_to_the_page_of_teams_it_was_on(aweb: Web, icu) -> None:
    response = _set(aweb, icu, "false", cursor="the-page-cursor")
    assert response.headers["Location"] == f"{TEAMS}?cursor=the-page-cursor"


@pytest.mark.parametrize("value", ["", "maybe", "False", "1"])
def test_a_tampered_value_changes_nothing_and_says_what_to_do(aweb: Web, icu, value) -> None:
    response = _set(aweb, icu, value)
    assert (response.status_code, response.headers["Location"]) == (303, TEAMS)
    assert _needs_approval(aweb, icu) is True
    assert "Choose whether shift swaps wait for a manager's approval." in _text(
        aweb.client.get(TEAMS).get_data(as_text=True))


def test_an_unknown_team_is_a_message_on_the_list(aweb: Web) -> None:
    response = _set(aweb, uuid.uuid4(), "false")
    assert (response.status_code, response.headers["Location"]) == (303, TEAMS)
    assert "That team no longer exists." in _text(aweb.client.get(TEAMS).get_data(as_text=True))


def test_other_roles_are_refused_and_the_team_is_unchanged(web: Web, aweb: Web, icu) -> None:
    for email in ("manager@example.com", "scheduler@example.com", "provider@example.com"):
        web.sign_in(email)
        assert _set(web, icu, "false").status_code == 403
    assert _needs_approval(aweb, icu) is True


def test_without_the_pages_token_nothing_changes(aweb: Web, icu) -> None:
    response = aweb.client.post(f"{TEAMS}/{icu}/swaps", data={"swaps_need_approval": "false"})
    assert response.status_code in (400, 403)
    assert _needs_approval(aweb, icu) is True
