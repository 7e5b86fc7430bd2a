"""Reading report runs through /v1: fields, newest-first pages, who may see which run."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from typing import Any

from app.api import models as m
from tests.factories import make_user, uid

RUNS = "/v1/reporting/reports/runs"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def world_run_created_at(session: Any) -> datetime:
    """When build_world stored its run (the clock at build time, not a fixed instant)."""
    run = session.get(m.ReportRun, uid("run:1"))
    assert run is not None
    return run.created_at


def add_runs(api: Any, count: int, *, by: uuid.UUID, report: str = "time-off-summary",
             status: str = "running") -> list[str]:
    """Store `count` runs an hour apart, newer than the world's; return their ids, oldest first."""
    made: list[str] = []
    with api.db.unit_of_work(write=True) as session:
        base = world_run_created_at(session)
        for index in range(count):
            run = m.ReportRun(report_id=report, created_by_id=by, status=status,
                              created_at=base + timedelta(hours=index + 1))
            session.add(run)
            session.flush()
            made.append(str(run.id))
    return made


def test_get_report_run_returns_completed_run_with_file(api, world):
    response = api.get(f"{RUNS}/{uid('run:1')}")
    assert response.status_code == 200
    body = response.get_json()
    assert TIMESTAMP.match(body.pop("createdAt"))
    assert body == {
        "id": str(uid("run:1")),
        "reportId": "timesheet-summary",
        "createdBy": {"id": str(world.admin), "name": "Ada Admin"},
        "status": "completed",
        "file": {"name": "timesheet-summary.csv", "mediaType": "text/csv", "sizeBytes": 12},
    }


def test_list_report_runs_returns_world_run(api, world):
    body = api.get(RUNS).get_json()
    assert body["cursor"] is None
    assert [run["id"] for run in body["items"]] == [str(uid("run:1"))]
    assert body["items"][0]["file"]["sizeBytes"] == 12
    assert body["items"][0]["createdBy"] == {"id": str(world.admin), "name": "Ada Admin"}


def test_list_report_runs_allows_manager(api):
    response = api.get(RUNS, user="manager@example.com")
    assert response.status_code == 200
    assert [run["id"] for run in response.get_json()["items"]] == [str(uid("run:1"))]


def test_get_report_run_allows_manager(api):
    assert api.get(f"{RUNS}/{uid('run:1')}", user="manager@example.com").status_code == 200


def test_list_report_runs_refuses_provider(api):
    response = api.get(RUNS, user="provider@example.com")
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
    body = response.get_json()
    assert body["action"] == "view"
    assert body["resource"] == "Report"


def test_get_report_run_refuses_provider(api):
    response = api.get(f"{RUNS}/{uid('run:1')}", user="provider@example.com")
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"


def test_list_report_runs_refuses_scheduler(api):
    assert api.get(RUNS, user="scheduler@example.com").status_code == 403


def test_get_report_run_returns_404_when_missing(api):
    missing = uuid.uuid4()
    response = api.get(f"{RUNS}/{missing}")
    assert response.status_code == 404
    assert problem_code(response) == "report-run-not-found"
    assert str(missing) in response.get_json()["detail"]


def test_get_report_run_rejects_malformed_id(api):
    response = api.get(f"{RUNS}/run-1")
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "reportRunId"


def test_list_report_runs_filters_by_report(api):
    only = api.get(RUNS, query_string={"reportId": "timesheet-summary"}).get_json()["items"]
    assert [run["id"] for run in only] == [str(uid("run:1"))]
    assert api.get(RUNS, query_string={"reportId": "shift-coverage"}).get_json()["items"] == []


def test_list_report_runs_filters_by_creator(fresh_api, world):
    mine = add_runs(fresh_api, 2, by=world.manager)
    body = fresh_api.get(RUNS, query_string={"createdBy": str(world.manager)}).get_json()
    assert [run["id"] for run in body["items"]] == list(reversed(mine))
    assert {run["createdBy"]["id"] for run in body["items"]} == {str(world.manager)}
    admins = fresh_api.get(RUNS, query_string={"createdBy": str(world.admin)}).get_json()
    assert [run["id"] for run in admins["items"]] == [str(uid("run:1"))]
    bad = fresh_api.get(RUNS, query_string={"createdBy": "someone"})
    assert bad.status_code == 400
    assert problem_code(bad) == "validation"


def test_list_report_runs_rejects_page_size_out_of_bounds(api):
    response = api.get(RUNS, query_string={"pageSize": 0})
    assert response.status_code == 400
    assert response.get_json()["path"] == "pageSize"


def test_list_report_runs_never_loads_file_content(api):
    with api.count_queries() as statements:
        assert api.get(RUNS).status_code == 200
        assert api.get(f"{RUNS}/{uid('run:1')}").status_code == 200
    assert statements
    assert not [s for s in statements if "file_content" in s]


def test_get_report_run_omits_file_while_running(fresh_api, world):
    (run_id,) = add_runs(fresh_api, 1, by=world.manager)
    body = fresh_api.get(f"{RUNS}/{run_id}", user="manager@example.com").get_json()
    assert body["status"] == "running"
    assert "file" not in body
    assert body["createdBy"] == {"id": str(world.manager), "name": "Morgan Manager"}


def test_get_report_run_omits_file_when_failed(fresh_api, world):
    (run_id,) = add_runs(fresh_api, 1, by=world.admin, status="failed")
    body = fresh_api.get(f"{RUNS}/{run_id}").get_json()
    assert body["status"] == "failed"
    assert "file" not in body


def test_list_report_runs_walks_pages_newest_first(fresh_api, world):
    made = add_runs(fresh_api, 4, by=world.manager)
    expected = [*reversed(made), str(uid("run:1"))]
    for size in (1, 2, 200):
        pages = fresh_api.walk(RUNS, page_size=size)
        flat = [run["id"] for page in pages for run in page]
        assert flat == expected, size


def store_ties(api: Any, *, microsecond: int) -> list[str]:
    """Store three runs created at the same instant, a day after the world's; ids, newest first."""
    with api.db.unit_of_work(write=True) as session:
        later = world_run_created_at(session) + timedelta(days=1)
        session.add_all([
            m.ReportRun(id=uid(f"tie:{i}"), report_id="x", created_by_id=api.world.admin,
                        created_at=later.replace(microsecond=microsecond))
            for i in range(3)
        ])
    return sorted((str(uid(f"tie:{i}")) for i in range(3)), reverse=True)


def test_list_report_runs_breaks_ties_on_id_descending(fresh_api):
    expected = [*store_ties(fresh_api, microsecond=0), str(uid("run:1"))]
    pages = fresh_api.walk(RUNS, page_size=1)
    assert [page[0]["id"] for page in pages] == expected


def test_list_report_runs_keeps_runs_created_within_one_second(fresh_api):
    expected = [*store_ties(fresh_api, microsecond=250_000), str(uid("run:1"))]
    pages = fresh_api.walk(RUNS, page_size=1)
    assert [page[0]["id"] for page in pages] == expected


def test_list_report_runs_rejects_tampered_cursor(fresh_api, world):
    add_runs(fresh_api, 2, by=world.admin)
    cursor = fresh_api.get(RUNS, query_string={"pageSize": 1}).get_json()["cursor"]
    response = fresh_api.get(RUNS, query_string={"pageSize": 1, "cursor": cursor + "x"})
    assert response.status_code == 400
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == "cursor"


def test_list_report_runs_issues_same_statements_whatever_page_size(fresh_api, world):
    for person in (world.manager, world.icu_manager, world.scheduler, world.doctor, world.bot):
        add_runs(fresh_api, 1, by=person)  # five creators: each would cost a lazy load
    with fresh_api.count_queries() as small:
        assert len(fresh_api.get(RUNS, query_string={"pageSize": 1}).get_json()["items"]) == 1
    with fresh_api.count_queries() as large:
        assert len(fresh_api.get(RUNS, query_string={"pageSize": 6}).get_json()["items"]) == 6
    assert len(small) == len(large)


def test_list_report_runs_shows_own_runs_under_conditional_rule(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        role = m.RbacRole(name="Analyst", permissions=[
            m.Permission(action="view", subject="Report", conditions={"createdBy": "$user.id"}),
        ])
        analyst = make_user(session, "analyst@example.com", "Ana Lyst")
        analyst.rbac_roles = [role]
        session.flush()
        analyst_id = analyst.id
    own = add_runs(fresh_api, 2, by=analyst_id)
    add_runs(fresh_api, 1, by=world.manager)
    items = fresh_api.get(RUNS, user="analyst@example.com").get_json()["items"]
    assert [run["id"] for run in items] == list(reversed(own))
    mine = fresh_api.get(f"{RUNS}/{own[0]}", user="analyst@example.com")
    assert mine.status_code == 200
    theirs = fresh_api.get(f"{RUNS}/{uid('run:1')}", user="analyst@example.com")
    assert theirs.status_code == 403
    assert problem_code(theirs) == "unauthorized"
