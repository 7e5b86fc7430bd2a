"""Report runs: `GET /v1/reporting/reports/runs` and `GET /v1/reporting/reports/runs/{id}`.

Thin views over `app.api.services.reports`. Reading needs `view` on `Report`; which runs a
caller sees follows those rules (see the service). Starting runs and the catalog live elsewhere.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import reports as service
from app.contract.reports import ReportRunListQuery, ReportRunPage, ReportRunRead


@endpoint("GET", "/reporting/reports/runs", summary="List report runs", query=ReportRunListQuery,
          response=ReportRunPage, tag="Reporting")
def list_report_runs(session: Session, actor: Actor, query: ReportRunListQuery,
                     pages: Paginator) -> ReportRunPage:
    """Report runs the caller may view, newest first, optionally of one report.

    Needs `view` on `Report`; an unconditional rule shows every run, a conditional one (for
    example `{"createdBy": "$user.id"}`) only the runs it matches.
    """
    rows, cursor = service.list_report_runs(session, actor=actor, query=query, pages=pages)
    return ReportRunPage(items=[service.report_run_read(r) for r in rows], cursor=cursor)


@endpoint("GET", "/reporting/reports/runs/<report_run_id>", summary="Get a report run",
          response=ReportRunRead, codes=["report-run-not-found"], tag="Reporting")
def get_report_run(session: Session, actor: Actor, report_run_id: uuid.UUID) -> ReportRunRead:
    """One report run; poll it until `status` leaves `running`. `file` appears once completed."""
    run = service.get_report_run(session, actor=actor, report_run_id=report_run_id)
    return service.report_run_read(run)
