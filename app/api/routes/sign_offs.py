"""Timesheet sign-offs (extension): `POST`/`GET /v1/timekeeping/timesheet/sign-offs`,
`GET` and `DELETE` (reopen) `/v1/timekeeping/timesheet/sign-offs/{signOffId}`.

Thin views over `app.api.services.sign_offs`; the clock is read here, at the edge. Must not hold
business rules or SQL.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import sign_offs as service
from app.config import Settings
from app.contract.sign_offs import (
    TimesheetSignOffCreate,
    TimesheetSignOffPage,
    TimesheetSignOffQuery,
    TimesheetSignOffRead,
)

_ITEM = "/timekeeping/timesheet/sign-offs/<sign_off_id>"


@endpoint("POST", "/timekeeping/timesheet/sign-offs", summary="Sign off timesheets",
          body=TimesheetSignOffCreate, response=TimesheetSignOffRead, status=201,
          codes=["validation", "unauthorized", "negative-range", "timesheet-not-ready",
                 "timesheet-signed-off"],
          extension=True, tag="Timekeeping", permits=[("sign_off", "Timesheet")])
def create_sign_off(session: Session, actor: Actor, settings: Settings,
                    body: TimesheetSignOffCreate,
                    ) -> tuple[TimesheetSignOffRead, dict[str, str]]:
    """Sign off the timesheets of a team's providers (`providerIds`, else every provider of the
    team) for `[startDate, endDate)` (at most 366 days). Needs `sign_off` Timesheet on each
    provider's timesheet.

    The timesheets are computed as `GET /v1/timekeeping/timesheet` computes them; while any
    punch in the range is `pending` or a `no_clock_out` or `invalid_shift` error remains, the
    answer is `timesheet-not-ready`, whose `blocking` lists each item as `{providerId, type,
    punchId | shiftId | timecardId}` with `type` one of `pending_punch`, `no_clock_out`,
    `invalid_shift`. A range overlapping an active sign-off of one of the providers is
    `timesheet-signed-off` (naming it in `signOffId`): nested sign-offs are not allowed;
    reopen the earlier one and sign off again. While signed off, punches in the range and
    shifts touching it of those providers cannot be written (`timesheet-signed-off`).
    """
    sign_off = service.create_sign_off(session, actor=actor, body=body, now=datetime.now(UTC),
                                       zone=settings.zone, grace_minutes=settings.grace_minutes)
    location = url_for("api.get_sign_off", sign_off_id=sign_off.id)
    return service.sign_off_read(actor, sign_off), {"Location": location}


@endpoint("GET", "/timekeeping/timesheet/sign-offs", summary="List timesheet sign-offs",
          query=TimesheetSignOffQuery, response=TimesheetSignOffPage,
          codes=["negative-range"], extension=True, tag="Timekeeping")
def list_sign_offs(session: Session, actor: Actor, query: TimesheetSignOffQuery,
                   pages: Paginator) -> TimesheetSignOffPage:
    """Sign-offs overlapping `[startDate, endDate)` (either bound may be left out), of `teamId`
    and `providerId` when given, by start; reopened ones too, with `reopenedAt` and
    `reopenedBy`. Only sign-offs of a provider whose timesheet the caller may view are listed,
    and `providerIds` names only such providers."""
    rows, cursor = service.list_sign_offs(session, actor=actor, query=query, pages=pages)
    return TimesheetSignOffPage(items=[service.sign_off_read(actor, r) for r in rows],
                                cursor=cursor)


@endpoint("GET", _ITEM, summary="Get a timesheet sign-off", response=TimesheetSignOffRead,
          codes=["timesheet-sign-off-not-found"], extension=True, tag="Timekeeping",
          permits=[("view", "Timesheet")])
def get_sign_off(session: Session, actor: Actor, sign_off_id: uuid.UUID) -> TimesheetSignOffRead:
    """One sign-off, if the caller may view the timesheet of one of its providers."""
    sign_off = service.get_sign_off(session, actor=actor, sign_off_id=sign_off_id)
    return service.sign_off_read(actor, sign_off)


@endpoint("DELETE", _ITEM, summary="Reopen a timesheet sign-off", status=204,
          codes=["timesheet-sign-off-not-found", "unauthorized", "invalid-state-transition"],
          extension=True, tag="Timekeeping", locate=service.locate_sign_off,
          permits=[("manage", "Timesheet")])
def delete_sign_off(session: Session, actor: Actor, sign_off_id: uuid.UUID) -> None:
    """Reopen a sign-off: its punches and shifts may change again. The sign-off is kept, with
    `reopenedAt` and `reopenedBy`; reopening it again is `invalid-state-transition`. Needs
    `manage` Timesheet on its providers' timesheets (administrators: the Manager role signs
    off but does not reopen)."""
    service.reopen_sign_off(session, actor=actor, sign_off_id=sign_off_id, now=datetime.now(UTC))
