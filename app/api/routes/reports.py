"""Reports: the catalog (extension), report runs (list, get, start), download links (extension)
and the signed file endpoint (extension).

Thin views over `app.api.services.reports`. Reading needs `view` on `Report`, starting a run
`create` on `Report`. `GET /v1/reporting/files/<token>` is public: the signed, expiring token is
the credential (403 `download-link-invalid` when altered or expired). The clock is read here.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import Response, current_app, url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import reports as service
from app.config import Settings
from app.contract.reports import (
    ReportDownload,
    ReportListQuery,
    ReportPage,
    ReportRunCreate,
    ReportRunListQuery,
    ReportRunPage,
    ReportRunRead,
)


@endpoint("GET", "/reporting/reports", summary="List the report catalog", query=ReportListQuery,
          response=ReportPage, extension=True, tag="Reporting",
          permits=[("view", "Report")])
def list_reports(actor: Actor, query: ReportListQuery, pages: Paginator) -> ReportPage:
    """The reports that can be run, by id, with the parameters each takes."""
    return service.list_reports(actor=actor, query=query, pages=pages)


@endpoint("POST", "/reporting/reports/runs", summary="Start a report run (beta)",
          body=ReportRunCreate, response=ReportRunRead, status=201,
          codes=["report-parameter-validation", "report-not-found", "user-not-found"],
          tag="Reporting",
          permits=[("create", "Report")])
def create_report_run(session: Session, actor: Actor,
                      body: ReportRunCreate) -> tuple[ReportRunRead, dict[str, str]]:
    """Start a run; it answers `running` at once and the job queue completes it (or `failed`
    at once, with `error`, when the job queue cannot take it).

    Poll `GET …/runs/{id}` until `status` is `completed` (then `file` is present) or `failed`.
    """
    jobs = current_app.extensions["shiftdesk"].jobs
    run = service.create_report_run(session, actor=actor, body=body, jobs=jobs)
    location = url_for("api.get_report_run", report_run_id=run.id)
    return service.report_run_read(run), {"Location": location}


@endpoint("GET", "/reporting/reports/runs", summary="List report runs", query=ReportRunListQuery,
          response=ReportRunPage, tag="Reporting",
          permits=[("view", "Report")])
def list_report_runs(session: Session, actor: Actor, query: ReportRunListQuery,
                     pages: Paginator) -> ReportRunPage:
    """Report runs the caller may view, newest first, optionally of one report.

    Needs `view` on `Report`; an unconditional rule shows every run, a conditional one (for
    example `{"createdBy": "$user.id"}`) only the runs it matches.
    """
    rows, cursor = service.list_report_runs(session, actor=actor, query=query, pages=pages)
    if any(r.status == "running" for r in rows):
        current_app.extensions["shiftdesk"].jobs.sweep()  # those a dead worker left: next look
    return ReportRunPage(items=[service.report_run_read(r) for r in rows], cursor=cursor)


@endpoint("GET", "/reporting/reports/runs/<report_run_id>", summary="Get a report run",
          response=ReportRunRead, codes=["report-run-not-found"], tag="Reporting",
          permits=[("view", "Report")])
def get_report_run(session: Session, actor: Actor, report_run_id: uuid.UUID) -> ReportRunRead:
    """One report run; poll it until `status` leaves `running`. `file` appears once completed.

    Every run ends: a run whose worker died is `failed` (with `error`) within a couple of
    minutes, at a poll after rq found the job abandoned."""
    run = service.get_report_run(session, actor=actor, report_run_id=report_run_id)
    if run.status == "running":
        current_app.extensions["shiftdesk"].jobs.sweep()
    return service.report_run_read(run)


@endpoint("GET", "/reporting/reports/runs/<report_run_id>/download",
          summary="Get a download link for a report run's file", response=ReportDownload,
          codes=["report-run-not-found", "invalid-state-transition"], extension=True,
          tag="Reporting",
          permits=[("view", "Report")])
def get_report_run_download(session: Session, actor: Actor, settings: Settings,
                            report_run_id: uuid.UUID) -> ReportDownload:
    """A signed URL to the completed run's CSV, working until `expiresAt` without a token.

    A run that has not completed answers 409 `invalid-state-transition` with `currentState`.
    """
    link = service.download_link(session, actor=actor, report_run_id=report_run_id,
                                 secret=settings.secret_key, ttl=settings.report_url_ttl,
                                 now=datetime.now(UTC))
    url = url_for("api.get_report_file", token=link.token, _external=True)
    return ReportDownload(url=url, expires_at=link.expires_at)


@endpoint("GET", "/reporting/files/<token>", summary="Download a report file by signed link",
          codes=["download-link-invalid", "report-run-not-found"], public=True, extension=True,
          tag="Reporting")
def get_report_file(session: Session, settings: Settings, token: str) -> Response:
    """The CSV of a completed run, as an attachment; the link's signature is the credential.

    An altered or expired link answers 403 `download-link-invalid`; a valid link to a run that
    no longer exists, 404 `report-run-not-found`.
    """
    run = service.report_file(session, token=token, secret=settings.secret_key,
                              ttl=settings.report_url_ttl, now=datetime.now(UTC))
    return Response(
        run.file_content, mimetype=run.file_media_type or "text/csv",
        headers={"Content-Disposition": f'attachment; filename="{run.file_name}"'},
    )
