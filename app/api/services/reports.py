"""Report runs: the catalog, starting runs, reading them, and signed download links.

A caller needs `view` on `Report` at all, and then sees the runs those rules match (fields
`reportId` and `createdBy`): admins and holders of an unconditional rule (the Manager and Admin
roles) see every run; a rule such as `{"createdBy": "$user.id"}` limits someone to their own.
Starting a run needs `create` on `Report`; the run is stored `running` and handed to the job
queue once the request's transaction commits. A download link is a URL carrying the run id
signed with the app's secret and a timestamp (itsdangerous), valid `report_url_ttl` seconds: the
signature is the credential, so the file endpoint needs no bearer token. Lists never load the
stored file (`file_content` stays deferred). Must not commit or read the clock (`now` is passed).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner
from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload, undefer

from app.api.auth import Actor
from app.api.jobs.queue import QUEUE_DOWN, JobQueue, enqueue_after_commit
from app.api.jobs.reports import CATALOG, Report, check_parameters, report_error, wire_parameters
from app.api.models import ReportRun, Team, User
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found
from app.api.subjects import REPORT
from app.contract.problems import ProblemCode
from app.contract.reports import (
    ReportFile,
    ReportListQuery,
    ReportPage,
    ReportParameter,
    ReportRead,
    ReportRunCreate,
    ReportRunListQuery,
    ReportRunRead,
    ReportUser,
)

DOWNLOAD_SALT = "shiftdesk.report-download"
"""Signatures of download links are valid for nothing else (cursors use another salt)."""


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
    if query.created_by is not None:
        statement = statement.where(ReportRun.created_by_id == query.created_by)
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
        "error": (run.error or "the run failed") if run.status == "failed" else None,
    })


# -- the catalog ------------------------------------------------------------------------------


def report_read(report: Report) -> ReportRead:
    """The wire form of a catalog entry."""
    return ReportRead(
        id=report.id, name=report.name, description=report.description,
        parameters=[ReportParameter(name=p.name, type=p.type, required=p.required,
                                    description=p.description, choices=list(p.choices) or None)
                    for p in report.parameters],
    )


def list_reports(*, actor: Actor, query: ReportListQuery, pages: Paginator) -> ReportPage:
    """One page of the catalog by report id; raises `unauthorized`, `validation` (cursor)."""
    actor.require("view", "Report")
    ordered = sorted(CATALOG)
    if query.cursor:
        (after,) = pages.read_cursor("reports", query, query.cursor, 1)
        ordered = [r for r in ordered if r > str(after)]
    chosen = ordered[: query.page_size]
    cursor = (pages.cursor_for("reports", query, [chosen[-1]])
              if len(ordered) > query.page_size else None)
    return ReportPage(items=[report_read(CATALOG[r]) for r in chosen], cursor=cursor)


# -- starting runs ----------------------------------------------------------------------------


def create_report_run(session: Session, *, actor: Actor, body: ReportRunCreate,
                      jobs: JobQueue) -> ReportRun:
    """Store a `running` run and enqueue it once the transaction commits; when the job queue
    cannot take jobs (Redis down), the run is stored `failed` with the reason instead.

    Raises `unauthorized`, `report-not-found`, `report-parameter-validation`, `user-not-found`.
    """
    actor.require("create", "Report", {"reportId": body.report_id, "createdBy": actor.user_id})
    report = CATALOG.get(body.report_id)
    if report is None:
        raise ProblemError(ProblemCode.REPORT_NOT_FOUND,
                           f"There is no report {body.report_id!r}; pick one of "
                           + ", ".join(sorted(CATALOG)) + ".")
    parsed = check_parameters(report, body.parameters)
    team_id = parsed.get("teamId")
    if team_id is not None and session.get(Team, team_id) is None:
        raise report_error("teamId", f"there is no team {team_id}")
    creator = session.get(User, actor.user_id)
    if creator is None:
        raise not_found("user", actor.user_id)
    run = ReportRun(report_id=report.id, created_by=creator, status="running",
                    parameters=wire_parameters(parsed))
    down = jobs.unavailable()
    if down is not None:  # the run ends at once, saying why, rather than running forever
        run.status, run.completed_at = "failed", datetime.now(UTC)
        run.error = QUEUE_DOWN.format(error=down)
    session.add(run)
    session.flush()
    if down is None:
        enqueue_after_commit(session, jobs, run.id)
    return run


# -- downloads --------------------------------------------------------------------------------


class _Signer(TimestampSigner):
    """A timestamp signer whose clock is the `now` it is given (tests move it)."""

    def __init__(self, secret: str, now: datetime) -> None:
        super().__init__(secret, salt=DOWNLOAD_SALT)
        self.now = now

    def get_timestamp(self) -> int:
        return int(self.now.timestamp())


def sign_download(secret: str, run_id: uuid.UUID, now: datetime) -> str:
    """The token of a download link for a run, signed at `now`."""
    return _Signer(secret, now).sign(str(run_id)).decode()


@dataclass(frozen=True)
class DownloadLink:
    """A signed token for a run's file and when it stops working."""

    token: str
    expires_at: datetime


def download_link(session: Session, *, actor: Actor, report_run_id: uuid.UUID, secret: str,
                  ttl: int, now: datetime) -> DownloadLink:
    """Sign a link to a completed run's file, valid `ttl` seconds from `now`.

    Raises `report-run-not-found`, `unauthorized`, `invalid-state-transition` (not completed).
    """
    run = get_report_run(session, actor=actor, report_run_id=report_run_id)
    if run.status != "completed" or run.file_size_bytes is None:
        raise ProblemError(
            ProblemCode.INVALID_STATE_TRANSITION,
            f"Report run {run.id} is {run.status}; only a completed run has a file to download"
            + (". Poll the run until it completes." if run.status == "running"
               else ". Start a new run."),
            currentState=run.status,
        )
    token = sign_download(secret, run.id, now)
    stamped = datetime.fromtimestamp(int(now.timestamp()), UTC)
    return DownloadLink(token=token, expires_at=stamped + timedelta(seconds=ttl))


def _invalid_link(detail: str) -> ProblemError:
    return ProblemError(ProblemCode.DOWNLOAD_LINK_INVALID, detail)


def report_file(session: Session, *, token: str, secret: str, ttl: int,
                now: datetime) -> ReportRun:
    """The run (file loaded) a download token names.

    Raises `download-link-invalid` (altered or expired), `report-run-not-found` (valid link,
    run since deleted).
    """
    try:
        value = _Signer(secret, now).unsign(token, max_age=ttl)
    except SignatureExpired as exc:
        raise _invalid_link("This download link has expired; ask for a new one from the "
                            "report run.") from exc
    except BadSignature as exc:
        raise _invalid_link("This download link is not valid; copy it again or ask for a "
                            "new one from the report run.") from exc
    try:
        run_id = uuid.UUID(value.decode())
    except (ValueError, UnicodeDecodeError) as exc:  # pragma: no cover - we signed it
        raise _invalid_link("This download link is not valid.") from exc
    run = session.get(ReportRun, run_id, options=[undefer(ReportRun.file_content)])
    if run is None or run.status != "completed" or run.file_content is None:
        raise ProblemError(ProblemCode.REPORT_RUN_NOT_FOUND,
                           f"Report run {run_id} and its file no longer exist; start a new run.")
    return run
