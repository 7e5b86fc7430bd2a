"""ApiClient against the real API app in-process: typed answers, problems as exceptions,
pagination and concurrency."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from app.client import (
    ApiClient,
    ApiUnavailable,
    Conflict,
    Forbidden,
    Maintenance,
    NotFound,
    Unauthenticated,
    ValidationProblem,
    VersionConflict,
    build_http,
)
from app.contract.labels import LabelCreate, LabelUpdate
from app.contract.reports import ReportListQuery, ReportRunListQuery
from app.contract.shifts import ShiftCreate, ShiftListQuery, ShiftUpdate
from app.contract.teams import TeamListQuery
from app.contract.time_off import TimeOffRequestListQuery
from app.contract.timekeeping import PunchCreate


@pytest.fixture
def http(api):
    client = build_http(wsgi_app=api.app)
    yield client
    client.close()


def as_user(api, http, email: str) -> ApiClient:
    return ApiClient(http, api.token(email))


def test_me_returns_typed_user(api, http, world):
    me = as_user(api, http, "provider@example.com").me()
    assert me.provider_id == world.provider
    assert me.roles == ["Provider"]


def test_missing_token_raises_unauthenticated(http):
    with pytest.raises(Unauthenticated) as caught:
        ApiClient(http).me()
    assert caught.value.status == 401
    assert caught.value.code == "unauthenticated"


def test_unknown_object_raises_not_found_with_code(api, http):
    with pytest.raises(NotFound) as caught:
        as_user(api, http, "admin@example.com").get_shift(uuid.uuid4())
    assert caught.value.code == "shift-not-found"
    assert caught.value.detail


def test_other_teams_request_raises_forbidden_with_members(api, http, world):
    client = as_user(api, http, "manager@example.com")
    with pytest.raises(Forbidden) as caught:
        client.get_time_off_request(world.ids["request_icu"])
    assert caught.value.code == "unauthorized"
    assert caught.value.extensions["action"] == "view"
    assert caught.value.extensions["resource"] == "TimeOffRequest"
    assert caught.value.reason


def test_invalid_query_raises_validation_with_paths(api, http):
    client = as_user(api, http, "admin@example.com")
    bad = TeamListQuery.model_construct(page_size=0, cursor="forged")
    with pytest.raises(ValidationProblem) as caught:
        client.list_teams(bad)
    paths = {e.path for e in caught.value.field_errors}
    assert "pageSize" in paths


def test_iterate_walks_a_long_list_completely(api, http):
    client = as_user(api, http, "admin@example.com")
    query = ShiftListQuery(page_size=7, include_callouts=True)
    walked = [s.id for s in client.iterate(client.list_shifts, query)]
    whole = client.list_shifts(ShiftListQuery(page_size=200, include_callouts=True))
    assert len(walked) > 7 * 5
    assert walked == [s.id for s in whole.items]
    assert len(set(walked)) == len(walked)


def test_concurrently_returns_results_in_order(api, http):
    client = as_user(api, http, "manager@example.com")
    me, requests = client.concurrently(
        client.me, lambda: client.list_time_off_requests(TimeOffRequestListQuery(page_size=50))
    )
    assert me.email == "manager@example.com"
    assert requests.items


def test_unreachable_api_raises_unavailable_after_retries():
    attempts = []

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts.append(request.method)
        raise httpx.ConnectError("connection refused", request=request)

    http = httpx.Client(transport=httpx.MockTransport(refuse), base_url="http://api.invalid")
    with pytest.raises(ApiUnavailable):
        ApiClient(http, "token").me()
    assert attempts == ["GET", "GET", "GET"]


def test_writes_are_never_retried():
    attempts = []

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts.append(request.method)
        raise httpx.ConnectError("connection refused", request=request)

    http = httpx.Client(transport=httpx.MockTransport(refuse), base_url="http://api.invalid")
    with pytest.raises(ApiUnavailable):
        ApiClient(http, "token").delete_shift(uuid.uuid4())
    assert attempts == ["DELETE"]


class _ResetOnce(httpx.BaseTransport):
    """The API in-process, but the first request's connection is reset by the server, as when
    a kept-alive connection is closed at the moment it is used again."""

    def __init__(self, app) -> None:
        self.inner = httpx.WSGITransport(app=app)
        self.attempts: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.attempts.append(request.method)
        if len(self.attempts) == 1:
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        return self.inner.handle_request(request)


def test_a_read_whose_connection_is_reset_is_asked_again(api):
    transport = _ResetOnce(api.app)
    http = httpx.Client(transport=transport, base_url="http://shiftdesk.internal")
    assert as_user(api, http, "provider@example.com").me().email == "provider@example.com"
    assert transport.attempts == ["GET", "GET"]


def test_a_write_whose_connection_is_reset_is_not_sent_again(api):
    transport = _ResetOnce(api.app)
    http = httpx.Client(transport=transport, base_url="http://shiftdesk.internal")
    with pytest.raises(ApiUnavailable, match="did not answer"):
        as_user(api, http, "manager@example.com").delete_shift(uuid.uuid4())
    assert transport.attempts == ["DELETE"]


def test_non_problem_error_raises_unavailable():
    http = httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(502, text="<html>bad gateway</html>")
    ), base_url="http://api.invalid")
    with pytest.raises(ApiUnavailable):
        ApiClient(http, "token").me()


@pytest.fixture
def fresh_http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def _open_shift_body(world, days: int = 10) -> ShiftCreate:
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=days)
    end = start + timedelta(hours=8)
    return ShiftCreate.model_validate({
        "provider": None, "team": world.ed, "startDate": start, "endDate": end,
        "segments": [{"role": world.ed_nurse_role, "type": "working",
                      "startDate": start, "endDate": end}],
    })


def test_stale_version_raises_version_conflict_with_current_version(fresh_api, fresh_http,
                                                                     world):
    manager = as_user(fresh_api, fresh_http, "manager@example.com")
    shift = manager.create_shift(_open_shift_body(world))
    manager.update_shift(shift.id, ShiftUpdate(version=shift.version, note="first"))
    with pytest.raises(VersionConflict) as caught:
        manager.update_shift(shift.id, ShiftUpdate(version=shift.version, note="second"))
    assert caught.value.code == "version-conflict"
    assert caught.value.current_version == shift.version + 1


def test_claim_conflict_raises_conflict_with_its_code(fresh_api, fresh_http, world):
    manager = as_user(fresh_api, fresh_http, "manager@example.com")
    shift = manager.create_shift(_open_shift_body(world))
    provider = as_user(fresh_api, fresh_http, "provider@example.com")
    assert provider.claim_shift(shift.id).provider == world.provider
    with pytest.raises(Conflict) as caught:
        provider.claim_shift(shift.id)
    assert caught.value.code == "shift-already-claimed"
    assert caught.value.status == 409


def test_invalid_punch_raises_validation_problem_with_code(fresh_api, fresh_http, world):
    provider = as_user(fresh_api, fresh_http, "provider@example.com")
    with pytest.raises(ValidationProblem) as caught:
        provider.create_punch(PunchCreate(provider=world.provider, action="break_end"))
    assert caught.value.code == "invalid-punch-action"


def test_maintenance_mode_raises_maintenance(fresh_api, signing_key_path, world):
    from app import create_app
    from tests.conftest import make_settings

    url = fresh_api.settings.database_url
    app = create_app(make_settings(url, signing_key_path, maintenance_mode=True))
    http = build_http(wsgi_app=app)
    try:
        manager = ApiClient(http, fresh_api.token("manager@example.com"))
        assert manager.me().email == "manager@example.com"  # reads keep working
        with pytest.raises(Maintenance) as caught:
            manager.create_shift(_open_shift_body(world))
        assert caught.value.code == "maintenance-mode"
    finally:
        http.close()
        app.extensions["shiftdesk"].db.dispose()


def test_report_catalog_and_runs_come_back_typed(api, http, world):
    admin = as_user(api, http, "admin@example.com")
    catalog = list(admin.iterate(admin.list_reports, ReportListQuery(page_size=2)))
    assert len(catalog) == 5
    coverage = next(r for r in catalog if r.id == "shift-coverage")
    assert next(p for p in coverage.parameters if p.name == "bucket").choices == ["hour", "day"]
    mine = admin.list_report_runs(ReportRunListQuery(created_by=world.admin))
    assert [run.created_by.id for run in mine.items] == [world.admin]
    theirs = admin.list_report_runs(ReportRunListQuery(created_by=world.manager))
    assert theirs.items == []


def test_label_methods_round_trip(fresh_api, fresh_http):
    client = ApiClient(fresh_http, fresh_api.token("admin@example.com"))
    created = client.create_label(LabelCreate(name="Preceptor", color="#17BECF"))
    saved = client.update_label(created.id, LabelUpdate(name="Lead preceptor"))
    assert (saved.name, saved.color) == ("Lead preceptor", "#17BECF")
    assert client.get_label(created.id) == saved
    usage = client.label_usage(created.id)
    assert (usage.label_id, usage.shift_count, usage.teams) == (created.id, 0, [])
    client.delete_label(created.id)
    with pytest.raises(NotFound) as caught:
        client.get_label(created.id)
    assert caught.value.code == "label-not-found"
