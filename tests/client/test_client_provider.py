"""ApiClient calls the provider pages rely on: the shape of `/me` timecards after punches, the
punch refusal the clock shows softly, and the claim problems' members the open-shifts page
turns into words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, Conflict, ValidationProblem, build_http
from app.contract.shifts import ShiftClaimCheckQuery, ShiftCreate, ShiftSegmentCreate
from app.contract.timekeeping import PunchCreate


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def _client(fresh_api, http, email: str) -> ApiClient:
    return ApiClient(http, fresh_api.token(email))


def _open_shift(fresh_api, http, start: datetime, **segment: object) -> str:
    admin = _client(fresh_api, http, "manager@example.com")
    world = fresh_api.world
    made = admin.create_shift(ShiftCreate(
        provider=None, team=world.ed, start_date=start, end_date=start + timedelta(hours=8),
        segments=[ShiftSegmentCreate(role=world.ed_nurse_role, type="working", start_date=start,
                                     end_date=start + timedelta(hours=8), **segment)]))
    return str(made.id)


def test_punch_moves_next_action_and_a_repeat_is_invalid_punch_action(fresh_api, http):
    client = _client(fresh_api, http, "ed.nurse1@example.com")
    me = client.me()
    assert client.my_timecard().next_action == ["clock_in"]
    client.create_punch(PunchCreate(provider=me.provider_id, action="clock_in",
                                    provider_note="hello"))
    card = client.my_timecard()
    assert sorted(card.next_action) == ["break_start", "clock_out"]
    assert card.punches[-1].provider_note == "hello"
    with pytest.raises(ValidationProblem) as caught:
        client.create_punch(PunchCreate(provider=me.provider_id, action="clock_in"))
    assert caught.value.code == "invalid-punch-action"


def test_claim_inside_notice_window_carries_the_window(fresh_api, http):
    shift_id = _open_shift(fresh_api, http, datetime.now(UTC) + timedelta(minutes=30))
    client = _client(fresh_api, http, "ed.nurse2@example.com")
    with pytest.raises(Conflict) as caught:
        client.claim_shift(shift_id)
    assert caught.value.code == "shift-claim-window-closed"
    assert caught.value.extensions["minimumNoticeMinutes"] == 120
    assert "startsAt" in caught.value.extensions


def test_claim_missing_skills_lists_them(fresh_api, http):
    shift_id = _open_shift(fresh_api, http, datetime.now(UTC) + timedelta(days=2),
                           skill_requirement={"type": "equal", "skill": "language",
                                              "value": "Tagalog"})
    client = _client(fresh_api, http, "ed.nurse3@example.com")
    with pytest.raises(Conflict) as caught:
        client.claim_shift(shift_id)
    assert caught.value.code == "shift-missing-skills"
    assert caught.value.extensions["missingSkills"][0]["name"] == "language"
    assert caught.value.extensions["missingSkills"][0]["value"] == "Tagalog"


def test_second_claim_is_already_claimed(fresh_api, http):
    shift_id = _open_shift(fresh_api, http, datetime.now(UTC) + timedelta(days=3))
    _client(fresh_api, http, "ed.nurse1@example.com").claim_shift(shift_id)
    with pytest.raises(Conflict) as caught:
        _client(fresh_api, http, "ed.nurse2@example.com").claim_shift(shift_id)
    assert caught.value.code == "shift-already-claimed"


def test_claim_checks_answer_each_shift_in_order_with_reasons_in_members(fresh_api, http):
    soon = _open_shift(fresh_api, http, datetime.now(UTC) + timedelta(minutes=30))
    later = _open_shift(fresh_api, http, datetime.now(UTC) + timedelta(days=4))
    client = _client(fresh_api, http, "ed.nurse2@example.com")
    answer = client.claim_checks(ShiftClaimCheckQuery(shift_ids=[later, soon]))
    assert [str(c.shift_id) for c in answer.items] == [later, soon]
    assert answer.items[0].claimable
    assert answer.items[0].refusals == []
    assert not answer.items[1].claimable
    refusal = answer.items[1].refusals[0]
    assert refusal.code == "shift-claim-window-closed"
    assert refusal.model_extra["minimumNoticeMinutes"] == 120
