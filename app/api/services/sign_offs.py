"""Timesheet sign-offs (extension): signing a team's timesheets off for a range, reading and
reopening sign-offs, and the guard every punch and shift write calls.

A sign-off is refused (`timesheet-not-ready`) while the timesheets of its providers, computed
exactly as `GET /v1/timekeeping/timesheet` computes them, hold a pending punch or a
`no_clock_out` or `invalid_shift` error; and (`timesheet-signed-off`) when it overlaps an active
sign-off of one of its providers: a range is signed off once, and reopened to be changed.
While a sign-off is active, punches in its range and shifts touching it of its providers are
frozen (`refuse_if_signed_off`, `refuse_shifts_if_signed_off`). Sign-offs and punch writes
serialise per provider on the provider rows (`lock_providers`, always in id order), so a punch
is either counted by a sign-off or refused after it. Lock order, to avoid deadlocks: a writer
that changes shifts locks their rows (and a time-off request's row before them) first, then the
providers' rows; a sign-off locks only provider rows. Must not commit, read the clock or know
about Flask requests.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, tzinfo

from sqlalchemy import ColumnElement, and_, exists, select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import Provider, Team, TimesheetSignOff, timesheet_sign_off_providers
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, not_found, validation
from app.api.services import locator, timekeeping
from app.api.subjects import TIMESHEET
from app.contract.common import format_timestamp
from app.contract.problems import FieldError, ProblemCode
from app.contract.sign_offs import (
    TimesheetBlockingItem,
    TimesheetSignOffCreate,
    TimesheetSignOffQuery,
    TimesheetSignOffRead,
)

locate_sign_off = locator(TimesheetSignOff, "timesheet-sign-off")

_LINK = timesheet_sign_off_providers

BLOCKING_ERRORS = ("no_clock_out", "invalid_shift")
"""Timesheet errors that keep a timesheet from being signed off. `missing_timecard` and
`missing_pay_period_template` do not: they say nothing was punched, which a sign-off accepts."""


# Locks and the guard ---------------------------------------------------------------------------


def lock_providers(session: Session, provider_ids: Iterable[uuid.UUID]) -> None:
    """Lock the providers' rows until the transaction ends, in id order (so two writers that
    lock several providers cannot deadlock). The same lock `timekeeping.lock_provider` takes
    for punch writes; SQLite's write transaction already holds the database lock."""
    ids = sorted(set(provider_ids))
    if ids:
        session.execute(select(Provider.id).where(Provider.id.in_(ids))
                        .order_by(Provider.id).with_for_update())


def _active_overlapping(provider_ids: Sequence[uuid.UUID], start: datetime, end: datetime,
                        ) -> ColumnElement[bool]:
    """Active sign-offs of any of these providers that overlap `[start, end)`."""
    return and_(
        TimesheetSignOff.reopened_at.is_(None),
        TimesheetSignOff.start_date < end,
        TimesheetSignOff.end_date > start,
        exists().where(_LINK.c.sign_off_id == TimesheetSignOff.id,
                       _LINK.c.provider_id.in_(provider_ids)),
    )


def signed_off(session: Session, *, provider_ids: Iterable[uuid.UUID], start: datetime,
               end: datetime | None = None) -> TimesheetSignOff | None:
    """The earliest active sign-off of any of these providers covering the instant `start`
    (without `end`) or overlapping `[start, end)`, if any."""
    ids = [i for i in dict.fromkeys(provider_ids) if i is not None]
    if not ids:
        return None
    if end is None:  # an instant: inside [startDate, endDate)
        end = start + timedelta(microseconds=1)
    return session.scalars(
        select(TimesheetSignOff).where(_active_overlapping(ids, start, end))
        .order_by(TimesheetSignOff.start_date, TimesheetSignOff.id).limit(1)
    ).first()


def _signed_off_problem(found: TimesheetSignOff, what: str) -> ProblemError:
    return ProblemError(
        ProblemCode.TIMESHEET_SIGNED_OFF,
        f"{what} falls in timesheets signed off from {format_timestamp(found.start_date)} to "
        f"{format_timestamp(found.end_date)}; ask whoever may reopen sign-off {found.id} to "
        "reopen it first.",
        signOffId=str(found.id),
    )


def refuse_if_signed_off(session: Session, *, provider_ids: Iterable[uuid.UUID | None],
                         start: datetime, end: datetime | None = None, what: str) -> None:
    """Raise `timesheet-signed-off` (naming the sign-off) when an active sign-off of one of
    these providers covers the instant `start`, or overlaps `[start, end)`. Callers lock the
    providers first (`lock_providers`), so that no sign-off can begin in between."""
    found = signed_off(session, provider_ids=[i for i in provider_ids if i is not None],
                       start=start, end=end)
    if found is not None:
        raise _signed_off_problem(found, what)


def refuse_shifts_if_signed_off(
        session: Session, spans: Sequence[tuple[uuid.UUID | None, datetime, datetime]]) -> None:
    """Raise `timesheet-signed-off` when a `(provider, start, end)` shift span touches an active
    sign-off of that provider, after locking the providers' rows (as punch writes and
    sign-offs do) so that no sign-off begins in between. Callers have locked the shift rows
    already (the lock order of this module). Open spans (no provider) are never frozen."""
    held = [(p, start, end) for p, start, end in spans if p is not None]
    lock_providers(session, [p for p, _, _ in held])
    for provider, start, end in held:
        refuse_if_signed_off(
            session, provider_ids=[provider], start=start, end=end,
            what=f"The shift from {format_timestamp(start)} to {format_timestamp(end)}")


def active_spans(session: Session, *, provider_id: uuid.UUID, start: datetime, end: datetime,
                 ) -> list[tuple[uuid.UUID, datetime, datetime]]:
    """`(id, startDate, endDate)` of the provider's active sign-offs overlapping
    `[start, end)`, earliest first (the order `signed_off` picks from)."""
    return [(i, a, b) for i, a, b in session.execute(
        select(TimesheetSignOff.id, TimesheetSignOff.start_date, TimesheetSignOff.end_date)
        .where(_active_overlapping([provider_id], start, end))
        .order_by(TimesheetSignOff.start_date, TimesheetSignOff.id)).tuples()]


# Signing off -----------------------------------------------------------------------------------


def _check_range(start: datetime, end: datetime) -> None:
    if end <= start:
        raise negative_range("/endDate")
    if end - start > timedelta(days=timekeeping.MAX_TIMESHEET_DAYS):
        raise validation("/endDate", f"a sign-off covers at most "
                                     f"{timekeeping.MAX_TIMESHEET_DAYS} days; sign off a "
                                     "shorter range")


def _providers(session: Session, body: TimesheetSignOffCreate) -> list[Provider]:
    """The providers to sign off, in id order: those named (each of the team), else the team's."""
    if session.get(Team, body.team_id) is None:
        raise validation("/teamId", f"no team has the id {body.team_id}")
    if body.provider_ids is None:
        found = list(session.scalars(select(Provider).where(Provider.team_id == body.team_id)
                                     .order_by(Provider.id)))
        if not found:
            raise validation("/teamId", "the team has no providers to sign off")
        return found
    wanted = list(dict.fromkeys(body.provider_ids))
    known = {p.id: p for p in session.scalars(select(Provider).where(Provider.id.in_(wanted)))}
    errors = [FieldError(path=f"/providerIds/{index}",
                         message=f"no provider of the team has the id {ident}")
              for index, ident in enumerate(body.provider_ids)
              if ident not in known or known[ident].team_id != body.team_id]
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)
    return sorted(known.values(), key=lambda p: p.id)


def blocking_items(documents: Sequence[dict[str, object]]) -> list[TimesheetBlockingItem]:
    """What keeps these timesheets (`TimesheetRead` documents) from being signed off: pending
    punches, then `no_clock_out` and `invalid_shift` errors, provider by provider."""
    items: list[TimesheetBlockingItem] = []
    for sheet in documents:
        provider = sheet["providerId"]
        for punch in sheet["punches"]:  # type: ignore[attr-defined]
            if punch["state"] == "pending":
                items.append(TimesheetBlockingItem(provider_id=provider, type="pending_punch",
                                                   punch_id=punch["id"]))
        for error in sheet["errors"]:  # type: ignore[attr-defined]
            if error["type"] in BLOCKING_ERRORS:
                items.append(TimesheetBlockingItem(
                    provider_id=provider, type=error["type"], shift_id=error.get("shiftId"),
                    timecard_id=error.get("timecardId")))
    return items


def create_sign_off(session: Session, *, actor: Actor, body: TimesheetSignOffCreate,
                    now: datetime, zone: tzinfo, grace_minutes: int) -> TimesheetSignOff:
    """Sign off the timesheets of a team's providers (all, or those named) for
    `[startDate, endDate)`.

    Needs `sign_off` Timesheet on each provider's timesheet. Locks the providers' rows (id
    order) before anything is checked, so punches written meanwhile are either seen here or
    refused after. Raises `negative-range`, `validation` (unknown team, a provider not of the
    team, a range over 366 days), `unauthorized`, `timesheet-signed-off` (overlaps an active
    sign-off of one of the providers) and `timesheet-not-ready` (with `blocking`).
    """
    _check_range(body.start_date, body.end_date)
    providers = _providers(session, body)
    for provider in providers:
        actor.require("sign_off", "Timesheet", TIMESHEET.of(provider))
    lock_providers(session, [p.id for p in providers])
    overlapping = signed_off(session, provider_ids=[p.id for p in providers],
                             start=body.start_date, end=body.end_date)
    if overlapping is not None:
        raise _signed_off_problem(overlapping, "This range")
    documents = timekeeping.timesheet_documents(
        session, providers=providers, start=body.start_date, end=body.end_date, now=now,
        zone=zone, grace_minutes=grace_minutes)
    blocking = blocking_items(documents)
    if blocking:
        raise ProblemError(
            ProblemCode.TIMESHEET_NOT_READY,
            f"{len(blocking)} item(s) keep these timesheets from being signed off: review "
            "pending punches, close clock-ins without a clock-out and fix invalid shifts, then "
            "sign off again.",
            blocking=[b.model_dump(mode="json", by_alias=True) for b in blocking],
        )
    sign_off = TimesheetSignOff(team_id=body.team_id, start_date=body.start_date,
                                end_date=body.end_date, signed_by_id=actor.user_id,
                                signed_at=now)
    sign_off.providers = providers
    session.add(sign_off)
    session.flush()
    return sign_off


# Reading and reopening ------------------------------------------------------------------------


def _visible_ids(actor: Actor, sign_off: TimesheetSignOff) -> list[uuid.UUID]:
    return [p.id for p in sign_off.providers
            if actor.can("view", "Timesheet", TIMESHEET.of(p))]


def sign_off_read(actor: Actor, sign_off: TimesheetSignOff) -> TimesheetSignOffRead:
    """The wire form of a sign-off, listing the providers whose timesheets the actor may view."""
    return TimesheetSignOffRead(
        id=sign_off.id, team_id=sign_off.team_id, start_date=sign_off.start_date,
        end_date=sign_off.end_date, provider_ids=_visible_ids(actor, sign_off),
        signed_by=sign_off.signed_by_id, signed_at=sign_off.signed_at,
        reopened_by=sign_off.reopened_by_id, reopened_at=sign_off.reopened_at)


def _found(session: Session, sign_off_id: uuid.UUID, *, lock: bool = False) -> TimesheetSignOff:
    found = session.get(TimesheetSignOff, sign_off_id, with_for_update=lock)
    if found is None:
        raise not_found("timesheet-sign-off", sign_off_id)
    return found


def get_sign_off(session: Session, *, actor: Actor, sign_off_id: uuid.UUID) -> TimesheetSignOff:
    """Return a sign-off the actor may view the timesheet of one of its providers of.
    Raises `timesheet-sign-off-not-found`, `unauthorized`."""
    sign_off = _found(session, sign_off_id)
    if not _visible_ids(actor, sign_off):
        actor.require("view", "Timesheet", TIMESHEET.of(sign_off.providers[0]))
    return sign_off


def list_sign_offs(session: Session, *, actor: Actor, query: TimesheetSignOffQuery,
                   pages: Paginator) -> tuple[list[TimesheetSignOff], str | None]:
    """One page of the sign-offs with a provider whose timesheet the actor may view, by start,
    filtered by team, provider and overlap with `[startDate, endDate)`, reopened ones included.
    Raises `negative-range`, `validation` (cursor)."""
    if query.start_date is not None and query.end_date is not None \
            and query.end_date <= query.start_date:
        raise ProblemError(ProblemCode.NEGATIVE_RANGE,
                           "endDate must come after startDate; swap them or widen the window.",
                           path="endDate")
    visible = (select(_LINK.c.sign_off_id)
               .join(Provider, Provider.id == _LINK.c.provider_id)
               .where(_LINK.c.sign_off_id == TimesheetSignOff.id,
                      actor.where("view", "Timesheet", TIMESHEET.columns)))
    filters: list[ColumnElement[bool]] = [visible.exists()]
    if query.team_id is not None:
        filters.append(TimesheetSignOff.team_id == query.team_id)
    if query.provider_id is not None:
        filters.append(exists().where(_LINK.c.sign_off_id == TimesheetSignOff.id,
                                      _LINK.c.provider_id == query.provider_id))
    if query.start_date is not None:
        filters.append(TimesheetSignOff.end_date > query.start_date)
    if query.end_date is not None:
        filters.append(TimesheetSignOff.start_date < query.end_date)
    statement = select(TimesheetSignOff).where(*filters)
    return pages.page(session, statement, scope="timesheet-sign-offs", query=query,
                      order=[SortKey(TimesheetSignOff.start_date), SortKey(TimesheetSignOff.id)])


def reopen_sign_off(session: Session, *, actor: Actor, sign_off_id: uuid.UUID,
                    now: datetime) -> TimesheetSignOff:
    """Reopen a sign-off: the row is kept with `reopened_at` and `reopened_by`, and its range's
    punches and shifts may change again. Needs `manage` Timesheet on each of its providers'
    timesheets (administrators; managers sign off but do not reopen). Raises
    `timesheet-sign-off-not-found`, `unauthorized`, `invalid-state-transition` (reopened
    already)."""
    sign_off = _found(session, sign_off_id, lock=True)
    for provider in sign_off.providers:
        actor.require("manage", "Timesheet", TIMESHEET.of(provider))
    if sign_off.reopened_at is not None:
        raise ProblemError(
            ProblemCode.INVALID_STATE_TRANSITION,
            f"This sign-off was already reopened at {format_timestamp(sign_off.reopened_at)}; "
            "there is nothing to reopen.",
            currentState="reopened",
        )
    sign_off.reopened_at = now
    sign_off.reopened_by_id = actor.user_id
    session.flush()
    return sign_off

