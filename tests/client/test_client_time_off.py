"""ApiClient calls of the time-off pages: a provider asking to cancel approved leave, the queue
of requests waiting for that decision (`cancellationRequested`), and a manager keeping the leave
with a reason."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, Conflict, build_http
from app.contract.time_off import (
    TimeOffApprove,
    TimeOffDeclineCancellation,
    TimeOffRequestCreate,
    TimeOffRequestListQuery,
)


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def _approved_leave(fresh_api, http) -> tuple[ApiClient, ApiClient, str]:
    """Pat's approved day off three weeks ahead; Pat's and the ED manager's clients."""
    pat = ApiClient(http, fresh_api.token("provider@example.com"))
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    start = (datetime.now(UTC) + timedelta(days=21)).replace(hour=5, minute=0, second=0,
                                                             microsecond=0)
    made = pat.create_time_off_request(TimeOffRequestCreate(
        policy_id=_pto(pat), start_date=start,
        end_date=start + timedelta(days=1), is_full_day=True))
    manager.approve_time_off_request(made.id, TimeOffApprove(conflict_resolution="keep"))
    return pat, manager, str(made.id)


def _pto(client: ApiClient):
    return next(p.id for p in client.list_time_off_policies().items if p.type == "paid-time-off")


def test_provider_asks_to_cancel_and_the_manager_sees_it_waiting(fresh_api, http):
    pat, manager, request_id = _approved_leave(fresh_api, http)
    asked = pat.cancel_time_off_request(request_id)
    assert asked.status == "approved"
    assert asked.cancellation_requested_at is not None
    waiting = manager.list_time_off_requests(TimeOffRequestListQuery(
        cancellation_requested=True))
    assert [str(r.id) for r in waiting.items] == [request_id]
    others = manager.list_time_off_requests(TimeOffRequestListQuery(
        cancellation_requested=False, page_size=200))
    assert request_id not in {str(r.id) for r in others.items}


def test_manager_declines_the_cancellation_with_a_reason(fresh_api, http):
    pat, manager, request_id = _approved_leave(fresh_api, http)
    pat.cancel_time_off_request(request_id)
    kept = manager.decline_time_off_cancellation(
        request_id, TimeOffDeclineCancellation(reason="Cover is already arranged"))
    assert kept.status == "approved"
    assert kept.cancellation_requested_at is None
    assert pat.get_time_off_request(request_id).cancellation_decline_reason \
        == "Cover is already arranged"
    with pytest.raises(Conflict) as caught:
        manager.decline_time_off_cancellation(request_id, TimeOffDeclineCancellation())
    assert caught.value.code == "invalid-state-transition"
