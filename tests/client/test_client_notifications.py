"""ApiClient's notification calls round-trip through the real app: the list and its unread
filter, the count, marking one read (a stale version is `VersionConflict`), marking all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, build_http
from app.client.errors import VersionConflict
from app.contract.notifications import (
    NotificationFilter,
    NotificationListQuery,
    NotificationUpdate,
)
from app.contract.shifts import ShiftCreate, ShiftSegmentCreate


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def test_notifications_round_trip(fresh_api, http):
    world = fresh_api.world
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    pat = ApiClient(http, fresh_api.token("provider@example.com"))
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=4)
    for day in range(2):
        begin = start + timedelta(days=day)
        manager.create_shift(ShiftCreate(
            provider=world.provider, team=world.ed, start_date=begin,
            end_date=begin + timedelta(hours=8),
            segments=[ShiftSegmentCreate(role=world.ed_nurse_role, type="working",
                                         start_date=begin, end_date=begin + timedelta(hours=8))]))
    page = pat.list_notifications(NotificationListQuery(unread=True))
    assert [n.kind for n in page.items] == ["shift-assigned", "shift-assigned"]
    assert pat.count_notifications(NotificationFilter(unread=True)) == 2
    assert pat.me().unread_notifications == 2
    first = page.items[0]
    read = pat.update_notification(first.id, NotificationUpdate(read=True, version=1))
    assert read.read_at is not None
    with pytest.raises(VersionConflict):
        pat.update_notification(first.id, NotificationUpdate(read=False, version=1))
    assert pat.mark_all_notifications_read() == 1
    assert pat.count_notifications(NotificationFilter(unread=True)) == 0
