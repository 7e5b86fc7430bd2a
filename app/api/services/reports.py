"""Reading report runs: list queries, lookups and ORM → wire conversion.

A caller needs `view` on `Report` at all, and then sees the runs those rules match (fields
`reportId` and `createdBy`): admins and holders of an unconditional rule (the Manager and Admin
roles) see every run; a rule such as `{"createdBy": "$user.id"}` limits someone to their own.
Must not load the stored file (`file_content` stays deferred), commit, or start runs.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from app.api.auth import Actor
from app.api.models import ReportRun
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.subjects import REPORT
from app.contract.reports import ReportFile, ReportRunListQuery, ReportRunRead, ReportUser


def list_report_runs(
    session: Session, *, actor: Actor, query: ReportRunListQuery, pages: Paginator
) -> tuple[list[ReportRun], str | None]:
    """One page of the runs the actor may view, newest first; raises `unauthorized`."""
    actor.require("view", "Report")
    statement = (
        select(ReportRun)
        .options(joinedload(ReportRun.created_by))
        .where(actor.where("view", "Report", REPORT.columns))
    )
    if query.report_id is not None:
        statement = statement.where(ReportRun.report_id == query.report_id)
    return pages.page(
        session, statement, scope="report-runs", query=query,
        order=[SortKey(ReportRun.created_at, descending=True),
               SortKey(ReportRun.id, descending=True)],
    )


def get_report_run(session: Session, *, actor: Actor, report_run_id: uuid.UUID) -> ReportRun:
    """One run the actor may view; raises `report-run-not-found`, `unauthorized`."""
    run = session.get(ReportRun, report_run_id, options=[joinedload(ReportRun.created_by)])
    if run is None:
        raise not_found("report-run", report_run_id)
    actor.require("view", "Report", REPORT.of(run))
    return run


def report_run_read(run: ReportRun) -> ReportRunRead:
    """The wire form of a run; `file` only once it has completed and its file is recorded."""
    file = None
    if (run.status == "completed" and run.file_name is not None
            and run.file_media_type is not None and run.file_size_bytes is not None):
        file = ReportFile(name=run.file_name, media_type=run.file_media_type,
                          size_bytes=run.file_size_bytes)
    return ReportRunRead.model_validate({
        "id": run.id,
        "reportId": run.report_id,
        "createdAt": run.created_at,
        "createdBy": ReportUser(id=run.created_by.id, name=run.created_by.name),
        "status": run.status,
        "file": file,
    })
