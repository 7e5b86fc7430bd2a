"""Reports (blueprint `reports`): the report catalog, a run form generated from each report's
parameters, a run's progress and its file, and the signed-in user's recent runs.

`GET /admin/reports` lists the catalog (each report in words, with a "Run" link) and the user's
own runs, newest first, a cursor page at a time. `GET /admin/reports/<report>/run` is the form
the catalog's parameters make (`app.web.reports.forms`); `POST` starts the run, the API's
`report-parameter-validation` or `validation` landing on the field its path names, and leads
to `GET /admin/reports/runs/<run>`: while the run is `running` its status panel polls that same
address every two seconds (htmx; the panel alone) and stops once the run has ended; without
JavaScript a Refresh link reloads it. A completed run offers its file through
`GET …/runs/<run>/download`, fetched here through the API's signed link so the browser never
needs the API's token; a failed run says why. The pages show only the user's own runs: any
other run id is "not found".

Who may open these pages follows the API: `create` on `Report` (administrators and managers in
the demo); others get the usual "can't open this page". Must not import `app.api`; it reaches
the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from typing import Any
from zoneinfo import ZoneInfo

from flask import Blueprint, Response, abort, current_app, flash, request, url_for

from app.client import ApiClient, ApiProblem, NotFound, ValidationProblem
from app.contract.reports import (
    ReportListQuery,
    ReportRead,
    ReportRunCreate,
    ReportRunListQuery,
    ReportRunPage,
    ReportRunRead,
)
from app.contract.teams import TeamListQuery
from app.web import nav, run_files
from app.web.auth import api, current_user
from app.web.forms import apply_problem, page_cursor
from app.web.htmx import is_partial, render, see_other
from app.web.reports import words
from app.web.reports.forms import ReportRunForm, run_form

bp = Blueprint("reports", __name__, url_prefix="/admin/reports")

PAGE_SIZE = 20
CATALOG_PAGE = 200
POLL = "every 2s"
PARAMETER_PATH = "/parameters/"
FORM_STATUSES = (400, 404, 409, 422)
"""API answers about what the form sent: shown on the form."""


def _zone() -> ZoneInfo:
    zone: ZoneInfo = current_app.extensions["shiftdesk_web"].settings.zone
    return zone


def _client() -> ApiClient:
    """The API, for a user who may run reports (anyone else gets the not-allowed page)."""
    if not nav.can(current_user(), "create", "Report"):
        abort(403)
    return api()


def _catalog(client: ApiClient) -> list[ReportRead]:
    reports = client.iterate(client.list_reports, ReportListQuery(page_size=CATALOG_PAGE))
    return sorted(reports, key=lambda r: r.name.casefold())


def _report(client: ApiClient, report_id: str) -> ReportRead:
    """The catalog's report `report_id`, or the not-found page."""
    found = next((r for r in _catalog(client) if r.id == report_id), None)
    if found is None:
        abort(404)
    return found


def _names(reports: list[ReportRead]) -> dict[str, str]:
    return {r.id: r.name for r in reports}


def _runs(client: ApiClient, mine: uuid.UUID, cursor: str | None,
          ) -> tuple[ReportRunPage, str | None]:
    """A page of `mine`'s runs; a cursor the API refuses (edited, stale) shows the newest.

    Runs in a worker thread: it is handed the user rather than reading the request."""
    try:
        return client.list_report_runs(ReportRunListQuery(
            page_size=PAGE_SIZE, cursor=cursor, created_by=mine)), None
    except ValidationProblem:
        if cursor is None:
            raise
        return (client.list_report_runs(ReportRunListQuery(page_size=PAGE_SIZE,
                                                           created_by=mine)),
                "That page of runs is no longer available; here are the newest.")


@bp.get("")
def index() -> Response:
    """The catalog and the user's recent runs."""
    client = _client()
    cursor = page_cursor(request.args.get("cursor"))
    if cursor is not None and len(cursor) > 2000:
        cursor = "-"  # the API refuses it as any bad cursor: the newest page instead
    mine = current_user().id
    reports, (runs, notice) = client.concurrently(lambda: _catalog(client),
                                                  lambda: _runs(client, mine, cursor))
    next_url = (url_for("reports.index", cursor=runs.cursor) + "#recent-runs"
                if runs.cursor else None)
    first_url = (url_for("reports.index") + "#recent-runs"
                 if cursor and notice is None else None)
    return render("reports/index.html", reports=reports, runs=runs.items,
                  names=_names(reports), next_url=next_url, first_url=first_url,
                  page_notice=notice, describe=words.description, status_words=words.STATUS)


def _form_page(report: ReportRead, form: ReportRunForm, status: int = 200) -> Response:
    return render("reports/new.html", report=report, form=form, status=status,
                  description=words.description(report.id, report.description))


def _teams(client: ApiClient, report: ReportRead) -> list[Any]:
    if not any(p.name == "teamId" and p.type == "uuid" for p in report.parameters):
        return []
    return list(client.iterate(client.list_teams, TeamListQuery(page_size=CATALOG_PAGE)))


@bp.get("/<report_id>/run")
def new(report_id: str) -> Response:
    """The report's run form."""
    client = _client()
    report = _report(client, report_id)
    return _form_page(report, run_form(report, _teams(client, report))())


@bp.post("/<report_id>/run")
def create(report_id: str) -> Response:
    """Start the run; its page then follows it."""
    client = _client()
    report = _report(client, report_id)
    form = run_form(report, _teams(client, report))()
    if not form.validate():
        return _form_page(report, form, 422)
    try:
        run = client.create_report_run(ReportRunCreate(
            report_id=report.id, parameters=form.parameters(_zone())))
    except ApiProblem as problem:
        if problem.status not in FORM_STATUSES:
            raise
        apply_problem(form, problem)
        # The detail of `report-parameter-validation` is "<path>: <message>", the message its
        # field already shows.
        form.form_errors = [e for e in form.form_errors if not e.startswith(PARAMETER_PATH)]
        return _form_page(report, form, 422)
    if run.status == "failed":
        flash(f"{report.name} could not start.", "error")
    else:
        flash(f"{report.name} started.", "success")
    return see_other(url_for("reports.show", run_id=run.id))


def _own_run(client: ApiClient, mine: uuid.UUID, run_id: uuid.UUID) -> ReportRunRead | None:
    """`mine`'s run `run_id`, or None (someone else's run is not found here either)."""
    try:
        run = client.get_report_run(run_id)
    except NotFound:
        return None
    return run if run.created_by.id == mine else None


@bp.get("/runs/<uuid:run_id>")
def show(run_id: uuid.UUID) -> Response:
    """A run's status panel (htmx polls the panel alone while the run is running)."""
    client = _client()
    mine = current_user().id
    if is_partial():  # a poll: the panel alone, which names no report
        run, names = _own_run(client, mine, run_id), {}
    else:
        run, reports = client.concurrently(lambda: _own_run(client, mine, run_id),
                                           lambda: _catalog(client))
        names = _names(reports)
    if run is None:
        abort(404)
    return render("reports/show.html", fragment="run_status", run=run,
                  name=names.get(run.report_id, words.spelt_out(run.report_id)),
                  status_words=words.STATUS, poll=POLL)


@bp.get("/runs/<uuid:run_id>/download")
def download(run_id: uuid.UUID) -> Response:
    """The run's file, fetched through the API's signed link (the browser has no token)."""
    client = _client()
    run = _own_run(client, current_user().id, run_id)
    if run is None:
        abort(404)
    answer = ("The report is not ready yet; wait until it says it is ready."
              if run.status != "completed" else run_files.fetch(client, run_id, "report.csv"))
    if isinstance(answer, Response):
        return answer
    flash(answer, "error")
    return see_other(url_for("reports.show", run_id=run_id))
