"""Report runs end to end: the catalog, starting runs, the job queue (embedded and Redis/rq),
CSV contents against the shared organisation, and signed, expiring download links."""

from __future__ import annotations

import csv
import io
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from app import create_app
from app.api import models as m
from app.api.services.reports import sign_download
from app.contract.common import format_timestamp
from tests.conftest import Api, make_settings
from tests.factories import DAYS, START

REPORTS = "/v1/reporting/reports"
RUNS = "/v1/reporting/reports/runs"
REDIS_URL = "redis://127.0.0.1:6379/0"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def window(start: datetime, end: datetime, **more: Any) -> dict[str, Any]:
    """Report parameters for `[start, end)`."""
    return {"startDate": format_timestamp(start), "endDate": format_timestamp(end), **more}


def start_run(api: Api, report: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """POST a run and check the immediate answer."""
    response = api.post(RUNS, json={"reportId": report, "parameters": parameters})
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "running"
    assert "file" not in body
    assert response.headers["Location"] == f"{RUNS}/{body['id']}"
    return body


def wait_for(api: Api, run_id: str, timeout: float = 15.0) -> dict[str, Any]:
    """Poll the run until it leaves `running` (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        body = api.get(f"{RUNS}/{run_id}").get_json()
        if body["status"] != "running" or time.monotonic() > deadline:
            return body
        time.sleep(0.02)


def download_csv(api: Api, run_id: str) -> list[dict[str, str]]:
    """Fetch a link for the run, follow it without a token, return the CSV's rows."""
    link = api.get(f"{RUNS}/{run_id}/download")
    assert link.status_code == 200, link.get_json()
    body = link.get_json()
    expires = datetime.strptime(body["expiresAt"], "%Y-%m-%dT%H:%M:%S%z")
    assert timedelta(0) < expires - datetime.now(UTC) <= timedelta(seconds=900)
    url = urlsplit(body["url"])
    assert url.scheme == "http"
    assert url.path.startswith("/v1/reporting/files/")
    response = api.get(url.path, user=None)
    assert response.status_code == 200, response.data
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def complete(api: Api, report: str, parameters: dict[str, Any]) -> list[dict[str, str]]:
    """Run a report to completion and return its CSV rows."""
    run = start_run(api, report, parameters)
    done = wait_for(api, run["id"])
    assert done["status"] == "completed", done
    assert done["file"]["mediaType"] == "text/csv"
    assert done["file"]["sizeBytes"] > 0
    return download_csv(api, run["id"])


def test_list_reports_returns_catalog_with_parameters(api):
    response = api.get(REPORTS)
    assert response.status_code == 200
    items = {r["id"]: r for r in response.get_json()["items"]}
    assert set(items) == {"appointments-by-provider", "payroll", "shift-coverage",
                          "time-off-summary", "timesheet-summary"}
    names = [p["name"] for p in items["timesheet-summary"]["parameters"]]
    assert names == ["startDate", "endDate", "teamId"]
    assert [p["required"] for p in items["timesheet-summary"]["parameters"]] == [True, True, False]
    bucket = next(p for p in items["shift-coverage"]["parameters"] if p["name"] == "bucket")
    assert bucket["choices"] == ["hour", "day"]
    assert all("choices" not in p for p in items["timesheet-summary"]["parameters"])


def test_list_reports_walks_pages_of_one(api):
    pages = api.walk(REPORTS, page_size=1)
    assert [len(p) for p in pages] == [1, 1, 1, 1, 1]
    assert len({p[0]["id"] for p in pages}) == 5


def test_appointments_by_provider_counts_match_world(fresh_api, world):
    start, end = START, START + timedelta(days=DAYS)
    rows = complete(fresh_api, "appointments-by-provider", window(start, end))
    with fresh_api.db.unit_of_work() as session:
        expected = Counter(
            (str(a.provider_id), a.status)
            for a in session.scalars(select(m.Appointment))
            if a.start_date < end and a.end_date > start
        )
    got = {(r["providerId"], r["status"]): int(r["appointments"]) for r in rows}
    assert got == dict(expected)
    assert got[(str(world.doctor), "cancelled")] == 1
    assert {r["providerName"] for r in rows} == {"Dana Doctor"}


def test_time_off_summary_rows_match_world(fresh_api, world):
    start, end = START + timedelta(days=19), START + timedelta(days=40)
    rows = complete(fresh_api, "time-off-summary", window(start, end))
    with fresh_api.db.unit_of_work() as session:
        expected: dict[tuple[str, str, str], list[float]] = {}
        for request in session.scalars(select(m.TimeOffRequest)):
            if request.start_date < end and request.end_date > start:
                key = (str(request.provider_id), str(request.policy_id), request.status)
                expected.setdefault(key, []).append(request.paid_hours)
    got = {(r["providerId"], r["policyId"], r["status"]): (int(r["requests"]),
                                                          float(r["paidHours"])) for r in rows}
    assert got == {k: (len(v), sum(v)) for k, v in expected.items()}
    assert {k[2] for k in got if k[0] == str(world.provider)} == {
        "pending", "approved", "rejected", "cancelled"}


def test_time_off_summary_respects_team_filter(fresh_api, world):
    rows = complete(fresh_api, "time-off-summary",
                    window(START, START + timedelta(days=40), teamId=str(world.icu)))
    assert {r["providerId"] for r in rows} == {str(world.icu_nurse)}


def test_timesheet_summary_matches_timesheet_endpoint(fresh_api, world):
    start, end = START - timedelta(hours=2), START + timedelta(days=2)
    rows = complete(fresh_api, "timesheet-summary", window(start, end, teamId=str(world.ed)))
    sheet = fresh_api.get("/v1/timekeeping/timesheet", query_string={
        "provider": str(world.provider), **window(start, end)}).get_json()
    mine = [r for r in rows if r["providerId"] == str(world.provider)]
    assert sorted((r["payCodeId"], r["roleId"], int(r["scheduledMinutes"]),
                   int(r["actualMinutes"])) for r in mine) == sorted(
        (t["payCodeId"], t["roleId"] or "", t["scheduled"], t["actual"])
        for t in sheet["payCodeTotals"])
    assert mine
    assert all(r["payCode"] == "REG" for r in mine if r["roleId"])
    assert {r["teamId"] for r in rows} == {str(world.ed)}


def test_shift_coverage_compares_scheduled_staff_with_demand(fresh_api, world):
    rows = complete(fresh_api, "shift-coverage",
                    window(START, START + timedelta(hours=12), teamId=str(world.ed),
                           bucket="hour"))
    nurses = {r["bucketStart"]: r for r in rows if r["roleId"] == str(world.ed_nurse_role)}
    first = nurses[format_timestamp(START)]
    # Four ED nurses work from START; the world's forecast asks for 4 over the same 12 hours.
    assert (first["scheduledStaff"], first["demand"], first["gap"]) == ("4", "4", "0")
    pause = nurses[format_timestamp(START + timedelta(hours=6))]
    assert (pause["scheduledStaff"], pause["demand"], pause["gap"]) == ("2", "4", "-2")
    doctors = [r for r in rows if r["roleId"] == str(world.ed_doctor_role)]
    assert doctors[0]["scheduledStaff"] == "1"
    assert doctors[0]["demand"] == "0"
    assert len(nurses) == 12


@pytest.mark.parametrize(("body", "status", "code", "path"), [
    ({"reportId": "nope"}, 404, "report-not-found", None),
    ({"reportId": "time-off-summary", "parameters": {}}, 400, "report-parameter-validation",
     "/parameters/startDate"),
    ({"reportId": "time-off-summary",
      "parameters": {"startDate": "2026-03-02T00:00:00+0000", "endDate": "2026-03-01T00:00:00Z"}},
     400, "report-parameter-validation", "/parameters/endDate"),
    ({"reportId": "time-off-summary",
      "parameters": {"startDate": "yesterday", "endDate": "2026-03-01T00:00:00Z"}},
     400, "report-parameter-validation", "/parameters/startDate"),
    ({"reportId": "time-off-summary",
      "parameters": {"startDate": "2026-03-01T00:00:00Z", "endDate": "2028-03-01T00:00:00Z"}},
     400, "report-parameter-validation", "/parameters/endDate"),
    ({"reportId": "timesheet-summary",
      "parameters": {"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-02T00:00:00Z",
                     "color": "red"}}, 400, "report-parameter-validation", "/parameters/color"),
    ({"reportId": "timesheet-summary",
      "parameters": {"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-02T00:00:00Z",
                     "teamId": "not-a-uuid"}}, 400, "report-parameter-validation",
     "/parameters/teamId"),
    ({"reportId": "timesheet-summary",
      "parameters": {"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-02T00:00:00Z",
                     "teamId": str(uuid.uuid4())}}, 400, "report-parameter-validation",
     "/parameters/teamId"),
    ({"reportId": "shift-coverage",
      "parameters": {"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-02T00:00:00Z",
                     "bucket": "week"}}, 400, "report-parameter-validation",
     "/parameters/bucket"),
    ({"parameters": {}}, 400, "validation", "/reportId"),
])
def test_create_report_run_refuses_bad_input(api, body, status, code, path):
    response = api.post(RUNS, json=body)
    assert response.status_code == status
    assert problem_code(response) == code
    if path is not None:
        problem = response.get_json()
        assert problem["path"] == path
        assert problem["message"]


def test_create_report_run_refuses_provider(api):
    response = api.post(RUNS, user="provider@example.com",
                        json={"reportId": "time-off-summary",
                              "parameters": window(START, START + timedelta(days=1))})
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_create_report_run_stores_parameters_and_creator(fresh_api, world):
    run = start_run(fresh_api, "time-off-summary",
                    {"startDate": "2026-03-02T07:00:00-05:00", "endDate": "2026-03-03T12:00:00Z"})
    assert run["createdBy"] == {"id": str(world.admin), "name": "Ada Admin"}
    wait_for(fresh_api, run["id"])
    with fresh_api.db.unit_of_work() as session:
        stored = session.get(m.ReportRun, uuid.UUID(run["id"]))
        assert stored is not None
        assert stored.parameters == {"startDate": "2026-03-02T12:00:00+0000",
                                     "endDate": "2026-03-03T12:00:00+0000"}


def _store_run(api: Api, by: uuid.UUID, parameters: dict[str, Any],
               report: str = "timesheet-summary") -> uuid.UUID:
    with api.db.unit_of_work(write=True) as session:
        run = m.ReportRun(report_id=report, created_by_id=by, status="running",
                          parameters=parameters)
        session.add(run)
        session.flush()
        return run.id


def test_report_run_ends_failed_when_the_job_raises(fresh_api, world):
    # Stored parameters the catalog refuses (as after a catalog change): the job must fail.
    run_id = _store_run(fresh_api, world.admin, {"startDate": "garbage"})
    fresh_api.app.extensions["shiftdesk"].jobs.enqueue_report_run(run_id)
    done = wait_for(fresh_api, str(run_id))
    assert done["status"] == "failed"
    assert "file" not in done
    with fresh_api.db.unit_of_work() as session:
        stored = session.get(m.ReportRun, run_id)
        assert stored is not None
        assert "startDate" in (stored.error or "")
    response = fresh_api.get(f"{RUNS}/{run_id}/download")
    assert response.status_code == 409
    assert problem_code(response) == "invalid-state-transition"
    assert response.get_json()["currentState"] == "failed"


def test_get_download_refuses_running_run(fresh_api, world):
    run_id = _store_run(fresh_api, world.admin, window(START, START + timedelta(days=1)))
    response = fresh_api.get(f"{RUNS}/{run_id}/download")
    assert response.status_code == 409
    assert response.get_json()["currentState"] == "running"


def test_get_download_refuses_unknown_run(api):
    response = api.get(f"{RUNS}/{uuid.uuid4()}/download")
    assert response.status_code == 404
    assert problem_code(response) == "report-run-not-found"


def test_get_report_file_refuses_expired_link(api, world):
    from tests.factories import uid

    ttl = api.settings.report_url_ttl
    token = sign_download(api.settings.secret_key, uid("run:1"),
                          datetime.now(UTC) - timedelta(seconds=ttl + 5))
    response = api.get(f"/v1/reporting/files/{token}", user=None)
    assert response.status_code == 403
    assert problem_code(response) == "download-link-invalid"
    assert "expired" in response.get_json()["detail"]


def test_get_report_file_serves_world_file_with_fresh_link(api):
    from tests.factories import uid

    token = sign_download(api.settings.secret_key, uid("run:1"), datetime.now(UTC))
    response = api.get(f"/v1/reporting/files/{token}", user=None)
    assert response.status_code == 200
    assert response.data == b"a,b\n1,2\n3,4\n"


def test_get_report_file_answers_404_for_deleted_run(api):
    token = sign_download(api.settings.secret_key, uuid.uuid4(), datetime.now(UTC))
    response = api.get(f"/v1/reporting/files/{token}", user=None)
    assert response.status_code == 404
    assert problem_code(response) == "report-run-not-found"


@pytest.mark.parametrize("change", ["signature", "run", "secret"])
def test_get_report_file_refuses_altered_link(api, change):
    from tests.factories import uid

    secret = "another-secret" if change == "secret" else api.settings.secret_key
    token = sign_download(secret, uid("run:1"), datetime.now(UTC))
    if change == "signature":
        token = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    elif change == "run":
        token = str(uuid.uuid4()) + token[36:]
    response = api.get(f"/v1/reporting/files/{token}", user=None)
    assert response.status_code == 403
    assert problem_code(response) == "download-link-invalid"


def _redis_reachable() -> bool:
    try:
        from redis import Redis

        return bool(Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except Exception:
        return False


def test_report_run_completes_through_redis_queue(fresh_api, world, signing_key_path: Path):
    if not _redis_reachable():
        pytest.skip("Redis is not running at 127.0.0.1:6379")
    from rq import SimpleWorker

    from app.api.jobs.context import JobContext
    from app.api.jobs.queue import RedisQueue, bind_worker

    app = create_app(make_settings(fresh_api.db.url, signing_key_path, redis_url=REDIS_URL))
    api = Api(app, world, fresh_api.backend)
    state = app.extensions["shiftdesk"]
    assert isinstance(state.jobs, RedisQueue)
    queue = state.jobs.queue
    queue.empty()
    try:
        run = start_run(api, "appointments-by-provider",
                        window(START, START + timedelta(days=DAYS)))
        assert api.get(f"{RUNS}/{run['id']}").get_json()["status"] == "running"
        assert queue.count == 1
        bind_worker(JobContext(state.db, api.settings))
        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        done = api.get(f"{RUNS}/{run['id']}").get_json()
        assert done["status"] == "completed", done
        rows = download_csv(api, run["id"])
        assert sum(int(r["appointments"]) for r in rows) == 25
    finally:
        queue.empty()
        state.jobs.close()
        state.db.dispose()
