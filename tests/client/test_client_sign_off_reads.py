"""ApiClient.list_sign_offs, as the provider's timecard reads it: a provider gets the sign-offs
covering them, parsed, naming only themselves; a manager gets the team's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.client import ApiClient, build_http
from app.contract.sign_offs import TimesheetSignOffQuery

FIRST_DAY = (datetime(2026, 3, 2, 5, tzinfo=UTC), datetime(2026, 3, 3, 5, tzinfo=UTC))


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def test_list_sign_offs_gives_a_provider_those_covering_them(fresh_api, http):
    world = fresh_api.world
    signed = fresh_api.post("/v1/timekeeping/timesheet/sign-offs", user="manager@example.com",
                            json={"teamId": str(world.ed), "startDate": "2026-03-02T05:00:00+0000",
                                  "endDate": "2026-03-03T05:00:00+0000"})
    assert signed.status_code == 201, signed.get_json()
    pat = ApiClient(http, fresh_api.token("provider@example.com"))
    query = TimesheetSignOffQuery(provider_id=world.provider, start_date=FIRST_DAY[0],
                                  end_date=datetime(2026, 3, 9, 4, tzinfo=UTC))
    [mine] = pat.list_sign_offs(query).items
    assert mine.provider_ids == [world.provider]
    assert mine.signed_by == world.manager
    assert mine.start_date == FIRST_DAY[0]
    assert mine.reopened_at is None
    # Asked about a colleague signed off with them, Pat still sees only themselves in it.
    [shared] = pat.list_sign_offs(TimesheetSignOffQuery(provider_id=world.doctor)).items
    assert shared.provider_ids == [world.provider]
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    team = manager.list_sign_offs(TimesheetSignOffQuery(team_id=world.ed)).items
    assert len(team[0].provider_ids) > 1
