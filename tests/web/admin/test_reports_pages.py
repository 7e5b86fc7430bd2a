"""The reports pages through the test client: the catalog in words, the generated run form and
the API's refusals on their fields, a run followed from running to completed and downloaded, a
failed run's reason, run ids that are not the user's own, and who may open the pages."""

from __future__ import annotations

import csv
import io
import re
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.web.conftest import Web

RUN_FORM = "/admin/reports/time-off-summary/run"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _store(web: Web, user: uuid.UUID, status: str, error: str | None = None,
           report: str = "time-off-summary") -> str:
    """A run of `report` by `user`, stored as it is; its id."""
    with web.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        run = m.ReportRun(report_id=report, created_by_id=user, status=status, error=error,
                          parameters={})
        session.add(run)
        session.flush()
        return str(run.id)


def _wait(web: Web, run_id: str) -> str:
    """The run's status once the job queue has ended it (bounded)."""
    deadline = time.monotonic() + 20
    while True:
        with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
            status = session.scalar(select(m.ReportRun.status).where(
                m.ReportRun.id == uuid.UUID(run_id)))
        if status != "running" or time.monotonic() > deadline:
            return str(status)
        time.sleep(0.05)


def _field_error(html: str, field_id: str) -> str:
    found = re.search(rf'<p id="{field_id}-error" class="field-error">([^<]*)</p>', html)
    assert found, f"no error on {field_id}"
    return found.group(1)


def _run(web: Web, data: dict[str, Any], url: str = RUN_FORM) -> Any:
    return web.client.post(url, data={"csrf_token": web.csrf(), **data})


def test_catalog_lists_each_report_in_words_with_a_run_link(aweb: Web) -> None:
    page = aweb.client.get("/admin/reports")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    text = _text(html)
    for name in ("Timesheet summary", "Time off summary", "Appointments by provider",
                 "Shift coverage", "Payroll export"):
        assert name in text
    for report in ("timesheet-summary", "time-off-summary", "appointments-by-provider",
                   "shift-coverage", "payroll"):
        assert f'href="/admin/reports/{report}/run"' in html
    assert "importedId" not in text
    assert "startDate" not in text
    # The administrator's own seeded run, with its status in words and a link to it.
    recent = html.split('id="recent-runs"', 1)[1]
    assert f'href="/admin/reports/runs/{uid("run:1")}"' in recent
    assert "Ready" in _text(recent)


def test_recent_runs_are_only_the_users_own_newest_first_a_page_at_a_time(aweb: Web) -> None:
    theirs = _store(aweb, aweb.world.manager, "completed")
    mine = [_store(aweb, aweb.world.admin, "failed", error="no") for _ in range(21)]
    first = aweb.client.get("/admin/reports").get_data(as_text=True).split('id="recent-runs"')[1]
    assert theirs not in first
    shown = re.findall(r'href="/admin/reports/runs/([0-9a-f-]{36})"', first)
    assert len(shown) == 20
    assert set(shown) <= set(mine) | {str(uid("run:1"))}
    older = re.search(r'href="([^"]*cursor=[^"#]*)#recent-runs">Older runs', first)
    assert older
    second = aweb.client.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)
    rest = re.findall(r'href="/admin/reports/runs/([0-9a-f-]{36})"',
                      second.split('id="recent-runs"')[1])
    assert len(rest) == 2
    assert not set(rest) & set(shown)
    edited = aweb.client.get("/admin/reports?cursor=not-a-cursor")
    assert edited.status_code == 200
    assert "no longer available" in _text(edited.get_data(as_text=True))


def test_run_form_has_a_labelled_field_per_parameter(aweb: Web) -> None:
    page = aweb.client.get(RUN_FORM)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert re.search(r'<label for="start_date">First day</label>\s*<input[^>]*type="date"', html)
    assert re.search(r'<label for="end_date">Last day</label>\s*<input[^>]*type="date"', html)
    team = html.split('id="team_id"', 1)[1].split("</select>", 1)[0]
    assert ">All teams<" in team
    assert ">Intensive Care<" in team
    coverage = aweb.client.get("/admin/reports/shift-coverage/run").get_data(as_text=True)
    bucket = coverage.split('id="bucket"', 1)[1].split("</select>", 1)[0]
    assert ">Hour<" in bucket
    assert ">Day<" in bucket
    assert aweb.client.get("/admin/reports/no-such-report/run").status_code == 404


def test_run_form_shows_missing_and_malformed_fields_inline(aweb: Web) -> None:
    answer = _run(aweb, {"start_date": "", "end_date": "not a day"})
    assert answer.status_code == 422
    html = answer.get_data(as_text=True)
    assert "<title>Error:" in html
    assert _field_error(html, "start_date")
    assert _field_error(html, "end_date")
    assert 'value="not a day"' in html  # what was typed stays
    assert 'aria-invalid="true"' in html


def test_api_refusal_lands_on_its_field_in_words(aweb: Web) -> None:
    # The last day before the first: the API's report-parameter-validation on /parameters/endDate.
    answer = _run(aweb, {"start_date": "2026-03-10", "end_date": "2026-03-01"})
    assert answer.status_code == 422
    html = answer.get_data(as_text=True)
    message = _field_error(html, "end_date")
    assert "must come after" in message
    assert "First day" in message
    summary = html.split('class="form-errors"', 1)[1].split("</div>", 1)[0]
    assert "/parameters/" not in summary  # said once, on its field
    assert "startDate" not in _text(html)
    assert "endDate" not in _text(html)
    too_long = _run(aweb, {"start_date": "2025-01-01", "end_date": "2026-12-31"})
    assert too_long.status_code == 422
    assert "at most" in _field_error(too_long.get_data(as_text=True), "end_date")


def test_run_goes_from_running_to_completed_and_downloads_its_file(aweb: Web) -> None:
    started = _run(aweb, {"start_date": "2026-03-02", "end_date": "2026-03-08",
                          "team_id": str(aweb.world.icu)})
    assert started.status_code == 303
    where = started.headers["Location"]
    run_id = re.fullmatch(r"/admin/reports/runs/([0-9a-f-]{36})", where).group(1)
    with aweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        run = session.get(m.ReportRun, uuid.UUID(run_id))
        assert run.parameters["teamId"] == str(aweb.world.icu)
        # The last day is included: the window ends at the next local midnight, which is
        # daylight time (clocks went forward on 8 March).
        assert run.parameters["startDate"] == "2026-03-02T05:00:00+0000"
        assert run.parameters["endDate"] == "2026-03-09T04:00:00+0000"
    assert _wait(aweb, run_id) == "completed"
    poll = aweb.client.get(where, headers={"HX-Request": "true"})
    fragment = poll.get_data(as_text=True)
    assert fragment.lstrip().startswith('<div id="run-status"')
    assert "hx-trigger" not in fragment  # ended: the panel stops polling
    assert "Vary" in poll.headers
    assert "Download the report" in fragment
    page = aweb.client.get(where).get_data(as_text=True)
    assert "Ready" in _text(page.split('id="run-status"', 1)[1])
    download = re.search(r'href="(/admin/reports/runs/[^"]+/download)"', page).group(1)
    answer = aweb.client.get(download)
    assert answer.status_code == 200
    assert answer.mimetype == "text/csv"
    assert answer.headers["Content-Disposition"].startswith("attachment; filename=")
    header = next(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    assert header[:2] == ["providerId", "providerName"]
    listed = aweb.client.get("/admin/reports").get_data(as_text=True)
    assert f'/admin/reports/runs/{run_id}' in listed.split('id="recent-runs"')[1]


def test_running_run_polls_every_two_seconds_and_offers_refresh(aweb: Web) -> None:
    run_id = _store(aweb, aweb.world.admin, "running")
    page = aweb.client.get(f"/admin/reports/runs/{run_id}").get_data(as_text=True)
    panel = page.split('id="run-status"', 1)[1].split("</div>", 1)[0]
    assert 'hx-trigger="every 2s"' in panel
    assert f'hx-get="/admin/reports/runs/{run_id}"' in panel
    assert re.search(rf'<a href="/admin/reports/runs/{run_id}">Refresh', panel)
    assert "Download" not in panel
    poll = aweb.client.get(f"/admin/reports/runs/{run_id}", headers={"HX-Request": "true"})
    fragment = poll.get_data(as_text=True)
    assert fragment.lstrip().startswith('<div id="run-status"')
    assert 'hx-trigger="every 2s"' in fragment  # still running: it keeps polling
    assert "<h1" not in fragment
    early = aweb.client.get(f"/admin/reports/runs/{run_id}/download")
    assert early.status_code == 303
    after = aweb.client.get(early.headers["Location"]).get_data(as_text=True)
    assert "not ready yet" in _text(after)


def test_failed_run_says_why_and_does_not_poll(aweb: Web) -> None:
    run_id = _store(aweb, aweb.world.admin, "failed", error="the job queue was down")
    page = aweb.client.get(f"/admin/reports/runs/{run_id}").get_data(as_text=True)
    panel = page.split('id="run-status"', 1)[1].split("</div>", 1)[0]
    assert "The report failed: the job queue was down" in _text(panel)
    assert "hx-trigger" not in panel
    assert "Download" not in panel


@pytest.mark.parametrize("which", ["someone else's", "unknown", "malformed"])
def test_a_run_that_is_not_the_users_own_is_not_found(aweb: Web, which: str) -> None:
    run_id = {"someone else's": lambda: _store(aweb, aweb.world.manager, "completed"),
              "unknown": lambda: str(uuid.uuid4()),
              "malformed": lambda: "not-a-run"}[which]()
    for url in (f"/admin/reports/runs/{run_id}", f"/admin/reports/runs/{run_id}/download"):
        answer = aweb.client.get(url)
        assert answer.status_code == 404, url
        assert "text/html" in answer.content_type


def test_manager_runs_reports_too(web: Web) -> None:
    web.sign_in("manager@example.com")
    assert "/admin/reports" in web.client.get("/").get_data(as_text=True)
    assert web.client.get("/admin/reports").status_code == 200
    assert web.client.get(RUN_FORM).status_code == 200


@pytest.mark.parametrize("email", ["provider@example.com", "scheduler@example.com"])
def test_reports_are_not_in_the_menu_and_not_allowed_for_other_roles(web: Web,
                                                                     email: str) -> None:
    web.sign_in(email)
    assert "Reports" not in _text(web.client.get("/").get_data(as_text=True))
    for url in ("/admin/reports", RUN_FORM, f"/admin/reports/runs/{uid('run:1')}"):
        page = web.client.get(url)
        assert page.status_code == 403, url
        assert "open this page" in _text(page.get_data(as_text=True))
    posted = web.client.post(RUN_FORM, data={"csrf_token": web.csrf()})
    assert posted.status_code == 403
