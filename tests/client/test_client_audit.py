"""ApiClient.list_audit_events: the trail parsed into contract models, filters sent by their wire
names (`from` included), a refusal raised as ApiProblem."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, ApiProblem, build_http
from app.contract.audit import AuditEventQuery


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def test_list_audit_events_round_trips_filters_and_events(fresh_api, http):
    label = fresh_api.post("/v1/settings/labels", json={"name": "Preceptor"}).get_json()
    admin = ApiClient(http, fresh_api.token("admin@example.com"))
    now = datetime.now(UTC)

    [event] = admin.list_audit_events(AuditEventQuery(
        subject="Label", record_id=label["id"], from_=now - timedelta(minutes=5))).items
    later = admin.list_audit_events(AuditEventQuery(subject="Label",
                                                    from_=now + timedelta(minutes=5)))

    assert (event.action, event.actor_id) == ("create", fresh_api.world.admin)
    assert event.changes["name"].after == "Preceptor"
    assert later.items == []


def test_list_audit_events_refuses_a_manager(fresh_api, http):
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    with pytest.raises(ApiProblem) as refused:
        manager.list_audit_events()
    assert refused.value.status == 403
