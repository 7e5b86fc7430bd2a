"""ApiClient methods the manager pages added: the time-off conflicts preview."""

from __future__ import annotations

import pytest

from app.client import ApiClient, Forbidden, build_http
from app.contract.time_off import TimeOffRequestConflicts


@pytest.fixture
def http(api):
    client = build_http(wsgi_app=api.app)
    yield client
    client.close()


def test_time_off_request_conflicts_returns_the_overlapping_shifts(api, http, world):
    client = ApiClient(http, api.token("manager@example.com"))
    preview = client.time_off_request_conflicts(world.ids["request_pending"])
    assert isinstance(preview, TimeOffRequestConflicts)
    assert all(shift.provider == world.provider for shift in preview.items)


def test_time_off_request_conflicts_of_another_team_raises_forbidden(api, http, world):
    client = ApiClient(http, api.token("manager@example.com"))
    with pytest.raises(Forbidden):
        client.time_off_request_conflicts(world.ids["request_icu"])
