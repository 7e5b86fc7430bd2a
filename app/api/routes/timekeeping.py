"""Timekeeping reads: `GET /v1/timekeeping/timecard/me`, `GET /v1/timekeeping/timecard/{provider}`
and `GET /v1/timekeeping/timesheet`.

Thin views over `app.api.services.timekeeping`; the clock is read here, at the edge, and passed
down as `now`. `/me` is declared before `/{provider}` so that the literal path wins.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import timekeeping as service
from app.config import Settings
from app.contract.timekeeping import (
    TimecardMe,
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
          codes=["provider-not-found", "pay-period-not-found"], tag="Timekeeping")
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
                  pages: Paginator) -> TimesheetRead | TimesheetPage:
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
