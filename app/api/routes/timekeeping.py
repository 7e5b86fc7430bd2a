"""Timekeeping: `GET /v1/timekeeping/timecard/me`, `GET /v1/timekeeping/timecard/{provider}`,
`GET /v1/timekeeping/timesheet`, and the punch writes `POST /v1/timekeeping/timecard/punches`,
`PATCH` (extension) and `DELETE /v1/timekeeping/timecard/punches/{punchId}`.

Thin views over `app.api.services.timekeeping`; the clock is read here, at the edge, and passed
down as `now`. `/me` is declared before `/{provider}` so that the literal path wins. Must not hold
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
from app.api.services import timekeeping as service
from app.api.wire_text import Document
from app.config import Settings
from app.contract.timekeeping import (
    PunchCreate,
    PunchUpdate,
    TimecardMe,
    TimecardPunchRead,
    TimecardQuery,
    TimecardRead,
    TimesheetPage,
    TimesheetQuery,
    TimesheetRead,
)


@endpoint("GET", "/timekeeping/timecard/me", summary="Get my timecard", response=TimecardMe,
          codes=["provider-not-found", "pay-period-not-found"], tag="Timekeeping")
def get_my_timecard(session: Session, actor: Actor, settings: Settings) -> TimecardMe:
    """The signed-in provider's timecard for the current pay period, the punch actions allowed
    next (`nextAction`), and their current and next shift (callouts left out; `onCall` when the
    shift has on-call and no working time). Callers who are not providers get
    `provider-not-found`."""
    return service.my_timecard(session, actor=actor, now=datetime.now(UTC), zone=settings.zone)


@endpoint("GET", "/timekeeping/timecard/<provider>", summary="Get a provider's timecard",
          query=TimecardQuery, response=TimecardRead,
          codes=["provider-not-found", "pay-period-not-found"], tag="Timekeeping",
          permits=[("view", "Timecard")])
def get_timecard(session: Session, actor: Actor, settings: Settings, query: TimecardQuery,
                 provider: uuid.UUID) -> TimecardRead:
    """A provider's timecard for the current pay period (or, with `startDate`, the period
    containing that instant): its punches in time order, rejected ones included, and the punch
    actions allowed next. `pay-period-not-found` when no timecard covers the instant and the
    provider has no usable pay period template."""
    found = service.get_provider(session, provider_id=provider)
    at = query.start_date or datetime.now(UTC)
    service.check_instant(at, "startDate")
    view = service.timecard_at(session, actor=actor, provider=found, at=at, zone=settings.zone)
    return service.timecard_read(view)


@endpoint("GET", "/timekeeping/timesheet", summary="Get timesheets", query=TimesheetQuery,
          response=TimesheetRead | TimesheetPage,
          codes=["negative-range", "provider-not-found", "team-not-found"], tag="Timekeeping")
def get_timesheet(session: Session, actor: Actor, settings: Settings, query: TimesheetQuery,
                  pages: Paginator) -> Document:
    """One provider's timesheet for `[startDate, endDate)` with `provider`; with `team`
    (extension) a page of timesheets, one per provider of the team the caller may view, by
    provider name (`pageSize`, `cursor`). Early/late warnings allow the grace window setting
    (`SHIFTDESK_GRACE_MINUTES`, default 7); shifts without a pay code count under the pay code
    with shorthand `REG` (else the first by name). At most 366 days per request."""
    now = datetime.now(UTC)
    if query.provider is not None:
        return service.get_timesheet(session, actor=actor, provider_id=query.provider,
                                     start=query.start_date, end=query.end_date, now=now,
                                     zone=settings.zone, grace_minutes=settings.grace_minutes)
    return service.list_team_timesheets(session, actor=actor, query=query, pages=pages, now=now,
                                        zone=settings.zone, grace_minutes=settings.grace_minutes)


@endpoint("POST", "/timekeeping/timecard/punches", summary="Create a timecard punch",
          body=PunchCreate, response=TimecardPunchRead, status=201,
          codes=["validation", "unauthorized", "invalid-punch-action", "pay-period-not-found",
                 "timesheet-signed-off"],
          tag="Timekeeping",
          permits=[("edit", "Timecard"), ("create", "Timecard")])
def create_punch(session: Session, actor: Actor, settings: Settings, body: PunchCreate,
                 ) -> tuple[TimecardPunchRead, dict[str, str]]:
    """Punch on the provider's timecard for the pay period containing `time` (default: now),
    creating the timecard when missing.

    `action` must be allowed after the provider's last non-rejected punch at or before `time`
    (else `invalid-punch-action`, naming the allowed actions); `time` may lie at most 5 minutes
    ahead. Needs `create` Timecard for the provider (or `edit` Timecard, as a manager has); a
    `state` other than `pending` or an `adminNote` also needs `approve` Timecard. Simultaneous
    punches of one provider are taken one after the other, so a double-clicked clock-in records
    one punch.
    """
    # Lock before reading the clock: a request that waited for the lock must not date its punch
    # before the punch of the request it waited for.
    service.lock_provider(session, provider_id=body.provider)
    punch = service.create_punch(session, actor=actor, body=body, now=datetime.now(UTC),
                                 zone=settings.zone)
    return service.punch_read(punch), {"Location": url_for("api.update_punch", punch_id=punch.id)}


@endpoint("PATCH", "/timekeeping/timecard/punches/<punch_id>", summary="Review a timecard punch",
          body=PunchUpdate, response=TimecardPunchRead,
          codes=["validation", "unauthorized", "timecard-punch-not-found",
                 "timesheet-signed-off"], extension=True,
          tag="Timekeeping", locate=service.locate_punch,
          permits=[("approve", "Timecard"), ("edit", "Timecard")])
def update_punch(session: Session, actor: Actor, body: PunchUpdate, punch_id: uuid.UUID,
                 settings: Settings) -> TimecardPunchRead:
    """Set a punch's `state` (needs `approve` Timecard), `adminNote` or corrected `time` (need
    `edit` Timecard); members left out keep their value, a null `adminNote` clears it.

    A corrected `time` must stay inside the punch's pay period (else `validation` on `/time`;
    delete and punch again to move it). The punch sequence is not re-checked: the next actions
    follow the punches as they now are.
    """
    punch = service.update_punch(session, actor=actor, punch_id=punch_id, body=body,
                                 now=datetime.now(UTC), zone=settings.zone)
    return service.punch_read(punch)


@endpoint("DELETE", "/timekeeping/timecard/punches/<punch_id>", summary="Delete a timecard punch",
          status=204, codes=["validation", "unauthorized", "timecard-punch-not-found",
                             "timesheet-signed-off"],
          tag="Timekeeping",
          permits=[("edit", "Timecard"), ("create", "Timecard")])
def delete_punch(session: Session, actor: Actor, punch_id: uuid.UUID) -> None:
    """Delete a punch: any punch with `edit` Timecard; a provider may withdraw their own pending
    punch. The next actions are then recomputed from the remaining punches."""
    service.delete_punch(session, actor=actor, punch_id=punch_id)
