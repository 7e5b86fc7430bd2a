"""ApiClient methods the timesheet's pay-period panel added: sign-offs (create, list, get,
reopen), a user by id, and report runs with their file fetched through the signed link."""

from __future__ import annotations

import csv
import io
import time
from datetime import UTC, datetime, timedelta

import pytest

from app.client import ApiClient, ApiProblem, Forbidden, build_http
from app.contract.common import format_timestamp
from app.contract.reports import ReportRunCreate
from app.contract.sign_offs import TimesheetSignOffCreate, TimesheetSignOffQuery

BEGIN = datetime(2026, 5, 4, 4, tzinfo=UTC)  # a quiet pay period of the shared organisation
END = BEGIN + timedelta(days=14)


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def test_sign_off_round_trip_and_reopen_needs_an_administrator(fresh_api, http, world):
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    signed = manager.create_sign_off(TimesheetSignOffCreate(team_id=world.ed, start_date=BEGIN,
                                                            end_date=END))
    assert signed.signed_by == world.manager
    listed = manager.list_sign_offs(TimesheetSignOffQuery(team_id=world.ed, start_date=BEGIN,
                                                          end_date=END))
    assert [s.id for s in listed.items] == [signed.id]
    assert manager.get_sign_off(signed.id).reopened_at is None
    assert manager.get_user(world.manager).name == "Morgan Manager"
    with pytest.raises(Forbidden):
        manager.reopen_sign_off(signed.id)
    ApiClient(http, fresh_api.token("admin@example.com")).reopen_sign_off(signed.id)
    assert manager.get_sign_off(signed.id).reopened_by == world.admin
    with pytest.raises(ApiProblem) as refused:
        manager.create_sign_off(TimesheetSignOffCreate(
            team_id=world.ed, start_date=datetime(2026, 3, 2, 5, tzinfo=UTC),
            end_date=datetime(2026, 3, 9, 4, tzinfo=UTC)))
    assert refused.value.code == "timesheet-not-ready"
    assert refused.value.extensions["blocking"]


def test_report_file_comes_through_the_signed_link(fresh_api, http, world):
    manager = ApiClient(http, fresh_api.token("manager@example.com"))
    run = manager.create_report_run(ReportRunCreate(report_id="timesheet-summary", parameters={
        "teamId": str(world.ed), "startDate": format_timestamp(BEGIN - timedelta(days=70)),
        "endDate": format_timestamp(END)}))
    deadline = time.monotonic() + 20
    while run.status == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        run = manager.get_report_run(run.id)
    assert run.status == "completed"
    link = manager.report_download(run.id)
    file = manager.report_file(link.url)
    assert file.media_type == "text/csv"
    assert file.name.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(file.content.decode())))
    assert {r["providerId"] for r in rows} >= {str(world.provider)}
    with pytest.raises(ApiProblem) as altered:
        manager.report_file(link.url[:-3] + "xyz")
    assert altered.value.code == "download-link-invalid"
