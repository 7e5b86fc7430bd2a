"""Shift swaps: listings, applications and the handover.

A provider lists one of their own future shifts (`swap` or `giveaway`, with a note and an expiry
no later than the shift's start). Colleagues of the shift's team who hold its roles see open
listings and apply, optionally offering one of their own future shifts in exchange. The lister
accepts one application; a manager of the team (`edit` Shift on both shifts) approves or
rejects it, unless the team's `swapsNeedApproval` is off, when accepting hands over at once.

Every step (apply, accept, approve) checks both directions of the trade: the applicant taking
the listed shift and, for an exchange, the lister taking the offered one. Each is checked as the
claim of an open shift (`shifts.taking_refusals`: started, minimum notice, role, skills,
approved time off, overlap, signed-off timesheet), then against the taker's unavailable time
(`shift-swap-unavailable`) and `maxWeeklyHours` (`shift-swap-max-weekly-hours`), and each giver's
signed-off timesheet (`timesheet-signed-off`). The first refusal is raised.

The handover locks the listing, the application, both shifts (id order) and both providers (id
order, `sign_offs.lock_providers`), in that order (shift writers lock shifts before providers
too), checks that neither shift changed since it was offered (its version then, else
`shift-swap-shift-changed`), runs the checks once more, and changes both shifts' providers in the
one transaction, each under its optimistic version. Listings and applications that the handover
makes moot (others on the same listing, other listings of either shift, applications offering
either shift) are closed in the same transaction.

Expiry is evaluated on read: an `open` listing whose `expiresAt` has passed reads `expired`, its
pending applications `closed`, and nothing more can happen to it (no worker needed; the stored
row stays `open`). Withdrawing a listing closes its applications in the same transaction.

Permissions come from the Shift subject and who one is, not a subject of their own: the lister
is the shift's provider; colleagues are the providers of the listing's team; managers are whoever
may `edit` the shifts. The `notify_*` functions are where notifications hook in: each is called
after its state change, inside the same transaction. Never commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, and_, exists, false, func, not_, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from app.api import models as m
from app.api.auth import Actor
from app.api.domain import availability as availability_rules
from app.api.models import Shift, ShiftSegment, ShiftSwapApplication, ShiftSwapListing
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found, validation
from app.api.services import availability, locator, notifications, shifts, sign_offs
from app.api.services.people import held_roles
from app.api.subjects import SHIFT
from app.contract.common import format_timestamp
from app.contract.problems import ProblemCode
from app.contract.shift_swaps import (
    ShiftSwapApplicationCreate,
    ShiftSwapApplicationQuery,
    ShiftSwapApplicationRead,
    ShiftSwapApplicationUpdate,
    ShiftSwapListingCreate,
    ShiftSwapListingQuery,
    ShiftSwapListingRead,
    ShiftSwapListingUpdate,
)

LIVE_APPLICATIONS = ("pending", "accepted")
LIVE_LISTINGS = ("open", "accepted")


# Notification hooks: one per event, called inside the transaction after the change -------------

def notify_listing_created(session: Session, listing: ShiftSwapListing) -> None:
    """A shift was listed: colleagues find it among open shifts and on the swaps page (no
    notice: a listing is an offer to many, not a decision about one)."""


def notify_listing_withdrawn(session: Session, listing: ShiftSwapListing,
                             closed: Sequence[ShiftSwapApplication]) -> None:
    """The lister withdrew a listing; `closed` are the applications it closed (their
    applicants see them closed on the swaps page)."""


def _step(session: Session, kind: str, application: ShiftSwapApplication,
          recipients: Sequence[uuid.UUID], *, actor: Actor, zone: ZoneInfo,
          subject: str = "ShiftSwapApplication", record_id: uuid.UUID | None = None,
          reason: str | None = None, needs_approval: bool = False) -> None:
    listing = application.listing
    notifications.swap_step(
        session, kind=kind, user_ids=recipients, shift=listing.shift, subject=subject,
        record_id=record_id or application.id, actor_id=actor.user_id, zone=zone,
        offered=application.offered_shift, reason=reason, needs_approval=needs_approval)


def notify_application_created(session: Session, application: ShiftSwapApplication, *,
                               actor: Actor, zone: ZoneInfo) -> None:
    """Someone applied to a listing: its lister hears of it (`swap-applied`)."""
    _step(session, "swap-applied", application, [application.listing.provider_id],
          actor=actor, zone=zone, subject="ShiftSwapListing",
          record_id=application.listing_id)


def notify_application_withdrawn(session: Session, application: ShiftSwapApplication) -> None:
    """The applicant withdrew (the lister sees it on the swaps page; no decision about them)."""


def notify_application_accepted(session: Session, application: ShiftSwapApplication, *,
                                actor: Actor, zone: ZoneInfo) -> None:
    """The lister accepted an application that now waits for a manager: the applicant hears
    of it (`swap-accepted`); the managers find it on their swaps page."""
    _step(session, "swap-accepted", application, [application.provider_id], actor=actor,
          zone=zone, needs_approval=True)


def notify_application_declined(session: Session, application: ShiftSwapApplication, *,
                                actor: Actor, zone: ZoneInfo) -> None:
    """The lister declined an application: the applicant hears of it (`swap-rejected`)."""
    _step(session, "swap-rejected", application, [application.provider_id], actor=actor,
          zone=zone)


def notify_swap_approved(session: Session, application: ShiftSwapApplication,
                         closed: Sequence[ShiftSwapApplication], *, actor: Actor,
                         zone: ZoneInfo) -> None:
    """The shifts changed hands (approved by a manager, or accepted where no approval is
    needed): the applicant and the lister hear of it (`swap-approved`; not whoever did it);
    `closed` are the applications it closed."""
    _step(session, "swap-approved", application,
          [application.provider_id, application.listing.provider_id], actor=actor, zone=zone)


def notify_swap_rejected(session: Session, application: ShiftSwapApplication, *,
                         actor: Actor, zone: ZoneInfo) -> None:
    """A manager rejected an accepted application, with `rejection_reason`: the applicant and
    the lister hear of it (`swap-rejected`)."""
    _step(session, "swap-rejected", application,
          [application.provider_id, application.listing.provider_id], actor=actor, zone=zone,
          reason=application.rejection_reason)


# Reading ---------------------------------------------------------------------------------------

def listing_status(listing: ShiftSwapListing, now: datetime) -> str:
    """The listing's state as read: an open listing past its expiry is `expired`."""
    if listing.status == "open" and listing.expires_at <= now:
        return "expired"
    return listing.status


def application_status(application: ShiftSwapApplication, listing_state: str) -> str:
    """The application's state as read: pending on a listing that is not open is `closed`."""
    if application.status == "pending" and listing_state not in ("open", "accepted"):
        return "closed"
    return application.status


def _held_role_ids(session: Session, actor: Actor) -> list[uuid.UUID]:
    if actor.provider_id is None:
        return []
    provider = session.get(m.Provider, actor.provider_id)
    return [] if provider is None else [role.id for role in held_roles(provider)]


def _listing_visible(session: Session, actor: Actor) -> ColumnElement[bool]:
    """The listings the actor may see: their own, those they applied to, those of their team
    whose every working role they hold, and those whose shift they may edit (managers)."""
    me = actor.provider_id
    clauses: list[ColumnElement[bool]] = [
        exists(select(Shift.id).where(Shift.id == ShiftSwapListing.shift_id,
                                      actor.where("edit", "Shift", SHIFT.columns),
                                      Shift.provider_id.is_not(None)))]
    if me is not None:
        held = _held_role_ids(session, actor)
        unheld_role = select(ShiftSegment.id).where(
            ShiftSegment.shift_id == ShiftSwapListing.shift_id,
            ShiftSegment.is_break.is_(False), ShiftSegment.role_id.is_not(None))
        if held:
            unheld_role = unheld_role.where(ShiftSegment.role_id.not_in(held))
        provider_team = select(m.Provider.team_id).where(m.Provider.id == me).scalar_subquery()
        clauses += [
            ShiftSwapListing.provider_id == me,
            exists(select(ShiftSwapApplication.id).where(
                ShiftSwapApplication.listing_id == ShiftSwapListing.id,
                ShiftSwapApplication.provider_id == me)),
            and_(ShiftSwapListing.team_id == provider_team, not_(exists(unheld_role))),
        ]
    return or_(*clauses)


def _may_manage(actor: Actor, *shifts_: Shift | None) -> bool:
    return all(s is None or actor.can("edit", "Shift", SHIFT.of(s)) for s in shifts_)


def _require_visible(session: Session, actor: Actor, listing: ShiftSwapListing) -> None:
    if session.scalar(select(ShiftSwapListing.id).where(
            ShiftSwapListing.id == listing.id, _listing_visible(session, actor))) is None:
        raise ProblemError(ProblemCode.UNAUTHORIZED,
                           "You may not see this swap listing: it is not yours, not open to "
                           "you, and not of a team whose schedule you edit.",
                           action="view", resource="ShiftSwapListing")


def listing_reads(session: Session, listings: Sequence[ShiftSwapListing],
                  now: datetime) -> list[ShiftSwapListingRead]:
    """The wire form of listings, with their shifts' times, listers' names and live
    application counts read in two statements."""
    if not listings:
        return []
    ids = [listing.id for listing in listings]
    info = {row.id: row for row in session.execute(
        select(ShiftSwapListing.id, Shift.start_date, Shift.end_date, m.Provider.name)
        .join(Shift, Shift.id == ShiftSwapListing.shift_id)
        .join(m.Provider, m.Provider.id == ShiftSwapListing.provider_id)
        .where(ShiftSwapListing.id.in_(ids)))}
    counts = dict(session.execute(
        select(ShiftSwapApplication.listing_id, func.count())
        .where(ShiftSwapApplication.listing_id.in_(ids),
               ShiftSwapApplication.status.in_(LIVE_APPLICATIONS))
        .group_by(ShiftSwapApplication.listing_id)).tuples().all())
    reads = []
    for listing in listings:
        row = info[listing.id]
        state = listing_status(listing, now)
        reads.append(ShiftSwapListingRead(
            id=listing.id, created_at=listing.created_at, updated_at=listing.updated_at,
            version=listing.version, shift_id=listing.shift_id, provider_id=listing.provider_id,
            team_id=listing.team_id, kind=listing.kind,  # type: ignore[arg-type]
            note=listing.note, expires_at=listing.expires_at,
            status=state,  # type: ignore[arg-type]
            shift_start=row.start_date, shift_end=row.end_date, provider_name=row.name,
            accepted_application_id=listing.accepted_application_id,
            application_count=counts.get(listing.id, 0) if state in LIVE_LISTINGS else 0))
    return reads


def application_reads(session: Session, applications: Sequence[ShiftSwapApplication],
                      now: datetime) -> list[ShiftSwapApplicationRead]:
    """The wire form of applications, with their listings' states, applicants' names and
    offered shifts' times."""
    if not applications:
        return []
    listings = {listing.id: listing for listing in session.scalars(
        select(ShiftSwapListing).where(ShiftSwapListing.id.in_(
            {a.listing_id for a in applications})))}
    names = dict(session.execute(select(m.Provider.id, m.Provider.name).where(
        m.Provider.id.in_({a.provider_id for a in applications}))).tuples().all())
    offered_ids = {a.offered_shift_id for a in applications if a.offered_shift_id}
    times = {row.id: row for row in session.execute(
        select(Shift.id, Shift.start_date, Shift.end_date).where(Shift.id.in_(offered_ids)))
    } if offered_ids else {}
    reads = []
    for application in applications:
        offered = times.get(application.offered_shift_id) if application.offered_shift_id \
            else None
        state = application_status(application,
                                   listing_status(listings[application.listing_id], now))
        reads.append(ShiftSwapApplicationRead(
            id=application.id, created_at=application.created_at,
            updated_at=application.updated_at, version=application.version,
            listing_id=application.listing_id, provider_id=application.provider_id,
            provider_name=names.get(application.provider_id),
            offered_shift_id=application.offered_shift_id,
            offered_shift_start=offered.start_date if offered else None,
            offered_shift_end=offered.end_date if offered else None,
            note=application.note, status=state,  # type: ignore[arg-type]
            decided_by=application.decided_by, decided_at=application.decided_at,
            rejection_reason=application.rejection_reason))
    return reads


def _status_clause(status: str, now: datetime) -> ColumnElement[bool]:
    if status == "expired":
        return and_(ShiftSwapListing.status == "open", ShiftSwapListing.expires_at <= now)
    if status == "open":
        return and_(ShiftSwapListing.status == "open", ShiftSwapListing.expires_at > now)
    return ShiftSwapListing.status == status


def list_listings(session: Session, *, actor: Actor, query: ShiftSwapListingQuery,
                  pages: Paginator, now: datetime) -> tuple[list[ShiftSwapListing], str | None]:
    """One page of the listings the actor may see, soonest expiry first. Raises `validation`
    (bad cursor)."""
    statement = select(ShiftSwapListing).where(_listing_visible(session, actor))
    if query.team_id is not None:
        statement = statement.where(ShiftSwapListing.team_id == query.team_id)
    if query.shift_id is not None:
        statement = statement.where(ShiftSwapListing.shift_id == query.shift_id)
    if query.status is not None:
        statement = statement.where(_status_clause(query.status, now))
    if query.mine:
        statement = statement.where(
            ShiftSwapListing.provider_id == actor.provider_id if actor.provider_id else false())
    return pages.page(session, statement, scope="shift-swap-listings", query=query,
                      order=[SortKey(ShiftSwapListing.expires_at), SortKey(ShiftSwapListing.id)])


locate_listing = locator(ShiftSwapListing, "shift-swap-listing")
locate_application = locator(ShiftSwapApplication, "shift-swap-application")


def get_listing(session: Session, *, actor: Actor, listing_id: uuid.UUID,
                lock: bool = False) -> ShiftSwapListing:
    """One listing the actor may see. Raises `shift-swap-listing-not-found`, `unauthorized`."""
    listing = session.get(ShiftSwapListing, listing_id, with_for_update=lock)
    if listing is None:
        raise not_found("shift-swap-listing", listing_id)
    _require_visible(session, actor, listing)
    return listing


def _application_visible(session: Session, actor: Actor) -> ColumnElement[bool]:
    me = actor.provider_id
    managed = exists(select(ShiftSwapListing.id).join(
        Shift, Shift.id == ShiftSwapListing.shift_id).where(
        ShiftSwapListing.id == ShiftSwapApplication.listing_id,
        actor.where("edit", "Shift", SHIFT.columns), Shift.provider_id.is_not(None)))
    if me is None:
        return managed
    return or_(ShiftSwapApplication.provider_id == me, managed,
               exists(select(ShiftSwapListing.id).where(
                   ShiftSwapListing.id == ShiftSwapApplication.listing_id,
                   ShiftSwapListing.provider_id == me)))


def list_applications(session: Session, *, actor: Actor, query: ShiftSwapApplicationQuery,
                      pages: Paginator, now: datetime,
                      ) -> tuple[list[ShiftSwapApplication], str | None]:
    """One page of the applications the actor may see (their own, to their listings, to
    listings of shifts they may edit), newest first. A `status` filter reads stored states,
    except `closed`, which includes pending applications of expired listings."""
    statement = select(ShiftSwapApplication).where(_application_visible(session, actor))
    if query.listing_id is not None:
        statement = statement.where(ShiftSwapApplication.listing_id == query.listing_id)
    if query.team_id is not None:
        statement = statement.where(ShiftSwapApplication.listing_id.in_(
            select(ShiftSwapListing.id).where(ShiftSwapListing.team_id == query.team_id)))
    expired = select(ShiftSwapListing.id).where(_status_clause("expired", now))
    if query.status == "pending":
        statement = statement.where(ShiftSwapApplication.status == "pending",
                                    ShiftSwapApplication.listing_id.not_in(expired))
    elif query.status == "closed":
        statement = statement.where(or_(
            ShiftSwapApplication.status == "closed",
            and_(ShiftSwapApplication.status == "pending",
                 ShiftSwapApplication.listing_id.in_(expired))))
    elif query.status is not None:
        statement = statement.where(ShiftSwapApplication.status == query.status)
    if query.mine:
        statement = statement.where(ShiftSwapApplication.provider_id == actor.provider_id
                                    if actor.provider_id else false())
    return pages.page(session, statement, scope="shift-swap-applications", query=query,
                      order=[SortKey(ShiftSwapApplication.created_at, descending=True),
                             SortKey(ShiftSwapApplication.id, descending=True)])


def get_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                    lock: bool = False) -> ShiftSwapApplication:
    """One application the actor may see. Raises `shift-swap-application-not-found`,
    `unauthorized`."""
    application = session.get(ShiftSwapApplication, application_id, with_for_update=lock)
    if application is None:
        raise not_found("shift-swap-application", application_id)
    if session.scalar(select(ShiftSwapApplication.id).where(
            ShiftSwapApplication.id == application_id,
            _application_visible(session, actor))) is None:
        raise ProblemError(ProblemCode.UNAUTHORIZED,
                           "You may not see this swap application: it is not yours, not to your "
                           "listing, and not of a team whose schedule you edit.",
                           action="view", resource="ShiftSwapApplication")
    return application


# The checks ------------------------------------------------------------------------------------

def _conflict(kind: str, current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This {kind} changed since you read it (it is now at version {current}); reload it and "
        "try again.", currentVersion=current)


def _check_version(kind: str, sent: int | None, current: int) -> None:
    if sent is not None and sent != current:
        raise _conflict(kind, current)


def _closed(listing: ShiftSwapListing, now: datetime, *, wanted: str = "open") -> None:
    state = listing_status(listing, now)
    if state != wanted:
        said = {"expired": f"expired at {format_timestamp(listing.expires_at)}",
                "accepted": "has an application accepted already",
                "completed": "has been swapped already", "withdrawn": "was withdrawn",
                "closed": "was closed: its shift changed hands in another swap",
                "open": "is still open: no application was accepted"}[state]
        raise ProblemError(ProblemCode.SHIFT_SWAP_LISTING_CLOSED,
                           f"This swap listing {said}.", listingId=str(listing.id),
                           listingStatus=state)


def _working_minutes(shift: Shift, start: datetime, end: datetime) -> float:
    """Minutes of `shift` inside `[start, end)`, its breaks left out."""
    def inside(a: datetime, b: datetime) -> float:
        return max(0.0, (min(b, end) - max(a, start)).total_seconds() / 60)
    return inside(shift.start_date, shift.end_date) - sum(
        inside(s.start_date, s.end_date) for s in shift.segments if s.is_break)


def _weekly_refusal(session: Session, taker: m.Provider, shift: Shift, giving: Sequence[Shift],
                    zone: ZoneInfo) -> ProblemError | None:
    """`shift-swap-max-weekly-hours` when taking `shift` (and handing over `giving`) puts the
    taker's working hours in a local week (Monday to Monday) the shift touches above their
    `maxWeeklyHours`."""
    limit = taker.max_weekly_hours
    if limit is None:
        return None
    first = shift.start_date.astimezone(zone).date()
    week = first - timedelta(days=first.weekday())
    last = shift.end_date.astimezone(zone).date()
    given = {s.id for s in giving}
    while week <= last:
        start = availability_rules.local_instant(week, "00:00", zone)
        end = availability_rules.local_instant(week + timedelta(days=7), "00:00", zone)
        theirs = session.scalars(select(Shift).where(
            Shift.provider_id == taker.id, Shift.is_callout.is_(False),
            Shift.start_date < end, Shift.end_date > start, Shift.id != shift.id)).all()
        minutes = sum(_working_minutes(s, start, end) for s in theirs if s.id not in given)
        minutes += _working_minutes(shift, start, end)
        if minutes > limit * 60 + 1e-6:
            hours = round(minutes / 60, 2)
            return ProblemError(
                ProblemCode.SHIFT_SWAP_MAX_WEEKLY_HOURS,
                f"{taker.name} would work {hours:g} hours in the week of {week.isoformat()}, "
                f"more than their limit of {limit:g} hours a week.",
                shiftId=str(shift.id), maxWeeklyHours=limit, scheduledHours=hours,
                weekStart=week.isoformat())
        week += timedelta(days=7)
    return None


def _unavailable_refusal(session: Session, taker: m.Provider, shift: Shift,
                         zone: ZoneInfo) -> ProblemError | None:
    first, last = availability.instant_days(shift.start_date, shift.end_date, zone)
    found = availability.provider_windows(session, [taker.id], first=first, last=last,
                                          zone=zone)[taker.id]
    overlaps = availability_rules.unavailable_overlaps(found, shift.start_date, shift.end_date)
    if not overlaps:
        return None
    reasons = "; ".join(w.reason for w in overlaps)
    return ProblemError(
        ProblemCode.SHIFT_SWAP_UNAVAILABLE,
        f"{taker.name} said they cannot work then ({reasons}).", shiftId=str(shift.id),
        windows=[{"startDate": format_timestamp(w.start), "endDate": format_timestamp(w.end),
                  "reason": w.reason} for w in overlaps])


def _refusal(session: Session, taker: m.Provider, shift: Shift, giving: Sequence[Shift], *,
             now: datetime, notice: int, zone: ZoneInfo) -> ProblemError | None:
    """The first reason `taker` may not take `shift` while handing over `giving`."""
    found = shifts.taking_refusals(session, shift, taker, giving=giving, now=now,
                                   default_notice_minutes=notice, zone=zone)
    if found:
        first = found[0]
        detail = first.detail.replace("the provider's", f"{taker.name}'s").replace(
            "The provider", taker.name).replace("the provider", taker.name)
        return ProblemError(first.code, detail, **first.members)
    return (_unavailable_refusal(session, taker, shift, zone)
            or _weekly_refusal(session, taker, shift, giving, zone))


def _check_trade(session: Session, *, listing_shift: Shift, offered: Shift | None,
                 lister: m.Provider, applicant: m.Provider, now: datetime, notice: int,
                 zone: ZoneInfo) -> None:
    """Raise the first refusal of either direction of the trade, then either giver's
    signed-off timesheet (which locks both providers' rows)."""
    giving = [offered] if offered is not None else []
    refusal = _refusal(session, applicant, listing_shift, giving, now=now, notice=notice,
                       zone=zone)
    if refusal is None and offered is not None:
        refusal = _refusal(session, lister, offered, [listing_shift], now=now, notice=notice,
                           zone=zone)
    if refusal is not None:
        raise refusal
    spans: list[tuple[uuid.UUID | None, datetime, datetime]] = [
        (lister.id, listing_shift.start_date, listing_shift.end_date)]
    if offered is not None:
        spans.append((applicant.id, offered.start_date, offered.end_date))
    sign_offs.refuse_shifts_if_signed_off(session, spans)


def _provider(session: Session, provider_id: uuid.UUID) -> m.Provider:
    provider = session.get(m.Provider, provider_id, options=shifts.CLAIMANT_LOADING)
    if provider is None:
        raise not_found("provider", provider_id)
    return provider


def _lock_shifts(session: Session, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Shift]:
    """Lock the shifts' rows in id order (the order shift writers lock in)."""
    found = {}
    for ident in sorted(set(ids)):
        shift = session.get(Shift, ident, with_for_update=True)
        if shift is None:
            raise not_found("shift", ident)
        found[ident] = shift
    return found


def _unchanged(shift: Shift, *, version: int | None, provider: uuid.UUID) -> None:
    if shift.version != version or shift.provider_id != provider:
        raise ProblemError(
            ProblemCode.SHIFT_SWAP_SHIFT_CHANGED,
            f"The shift from {format_timestamp(shift.start_date)} changed since it was offered "
            "for this swap (a manager edited or reassigned it); the swap cannot go ahead as "
            "agreed.",
            shiftId=str(shift.id), offeredVersion=version or 0, currentVersion=shift.version)


# Listings --------------------------------------------------------------------------------------

def create_listing(session: Session, *, actor: Actor, body: ShiftSwapListingCreate,
                   now: datetime) -> ShiftSwapListing:
    """List one of the caller's own future shifts. Raises `shift-not-found`, `unauthorized`
    (a shift they may not view), `shift-swap-not-own-shift`, `validation` (a callout; an
    expiry past the shift's start or already passed), `shift-already-started`,
    `shift-swap-already-listed`."""
    shift = session.get(Shift, body.shift_id, with_for_update=True)
    if shift is None:
        raise not_found("shift", body.shift_id)
    actor.require("view", "Shift", SHIFT.of(shift))
    if actor.provider_id is None or shift.provider_id != actor.provider_id:
        raise ProblemError(ProblemCode.SHIFT_SWAP_NOT_OWN_SHIFT,
                           "Only the provider working a shift may list it for a swap.",
                           shiftId=str(shift.id))
    if shift.start_date <= now:
        raise ProblemError(ProblemCode.SHIFT_ALREADY_STARTED,
                           f"This shift started at {format_timestamp(shift.start_date)}; only "
                           "shifts that have not started can be listed.")
    if shift.is_callout:
        raise validation("/shiftId", "this shift is a callout; it is not yours to hand over")
    if shift.team_id is None:
        raise validation("/shiftId", "this shift belongs to no team, so no colleague can take it")
    expires = body.expires_at or shift.start_date
    if expires > shift.start_date:
        raise validation("/expiresAt", "must not be after the shift starts "
                                       f"({format_timestamp(shift.start_date)})")
    if expires <= now:
        raise validation("/expiresAt", "must be in the future")
    listed = session.scalar(select(ShiftSwapListing.id).where(
        ShiftSwapListing.shift_id == shift.id, ShiftSwapListing.status.in_(LIVE_LISTINGS),
        or_(ShiftSwapListing.status == "accepted", ShiftSwapListing.expires_at > now)))
    if listed is not None:
        raise ProblemError(ProblemCode.SHIFT_SWAP_ALREADY_LISTED,
                           "This shift is listed for a swap already; change or withdraw that "
                           "listing instead.", listingId=str(listed))
    listing = ShiftSwapListing(shift_id=shift.id, shift_version=shift.version,
                               provider_id=shift.provider_id, team_id=shift.team_id,
                               kind=body.kind, note=body.note, expires_at=expires,
                               status="open", created_at=now, updated_at=now)
    session.add(listing)
    session.flush()
    notify_listing_created(session, listing)
    return listing


def _close_applications(session: Session, listing_ids: Sequence[uuid.UUID], now: datetime, *,
                        keep: uuid.UUID | None = None) -> list[ShiftSwapApplication]:
    found = list(session.scalars(select(ShiftSwapApplication).where(
        ShiftSwapApplication.listing_id.in_(listing_ids),
        ShiftSwapApplication.status.in_(LIVE_APPLICATIONS),
        ShiftSwapApplication.id != keep if keep else ShiftSwapApplication.id.is_not(None),
    ).with_for_update()))
    for application in found:
        application.status = "closed"
        application.updated_at = now
    return found


def update_listing(session: Session, *, actor: Actor, listing_id: uuid.UUID,
                   body: ShiftSwapListingUpdate, now: datetime) -> ShiftSwapListing:
    """Change the note or expiry of an open listing, or withdraw it (closing its applications).
    The lister, or a manager of the shift, may. Raises `shift-swap-listing-not-found`,
    `unauthorized`, `version-conflict`, `shift-swap-listing-closed`, `validation`."""
    listing = get_listing(session, actor=actor, listing_id=listing_id, lock=True)
    if listing.provider_id != actor.provider_id and not _may_manage(actor, listing.shift):
        raise ProblemError(ProblemCode.UNAUTHORIZED, "Only the lister or a manager of the "
                           "shift may change this listing.", action="edit",
                           resource="ShiftSwapListing")
    _check_version("listing", body.version, listing.version)
    sent = body.model_fields_set
    withdrawing = body.status == "withdrawn"
    if not (withdrawing and listing.status == "accepted"):
        _closed(listing, now)
    if "expires_at" in sent and body.expires_at is not None:
        if body.expires_at > listing.shift.start_date:
            raise validation("/expiresAt", "must not be after the shift starts "
                                           f"({format_timestamp(listing.shift.start_date)})")
        if body.expires_at <= now:
            raise validation("/expiresAt", "must be in the future")
        listing.expires_at = body.expires_at
    if "note" in sent:
        listing.note = body.note
    listing.updated_at = now
    closed: list[ShiftSwapApplication] = []
    if withdrawing:
        listing.status = "withdrawn"
        listing.accepted_application_id = None
        closed = _close_applications(session, [listing.id], now)
    _flush(session, listing, "listing")
    if withdrawing:
        notify_listing_withdrawn(session, listing, closed)
    return listing


def _flush(session: Session, row: Any, kind: str) -> None:
    try:
        session.flush()
    except StaleDataError as exc:
        session.rollback()
        raise _conflict(kind, 0) from exc


# Applications ----------------------------------------------------------------------------------

def _offered_shift(session: Session, actor: Actor, listing: ShiftSwapListing,
                   offered_id: uuid.UUID | None, now: datetime) -> Shift | None:
    if offered_id is None:
        return None
    if listing.kind == "giveaway":
        raise validation("/offeredShiftId", "this shift is given away; apply without offering "
                                            "one of yours in exchange")
    offered = session.get(Shift, offered_id, with_for_update=True)
    if offered is None or offered.provider_id != actor.provider_id:
        raise validation("/offeredShiftId", "offer one of your own shifts")
    if offered.id == listing.shift_id:
        raise validation("/offeredShiftId", "offer another shift than the one listed")
    if offered.is_callout:
        raise validation("/offeredShiftId", "a callout shift cannot be offered")
    if offered.start_date <= now:
        raise validation("/offeredShiftId", "offer a shift that has not started")
    if offered.team_id != listing.team_id:
        raise validation("/offeredShiftId", "offer a shift of the listed shift's team")
    return offered


def create_application(session: Session, *, actor: Actor, body: ShiftSwapApplicationCreate,
                       now: datetime, notice: int, zone: ZoneInfo) -> ShiftSwapApplication:
    """Apply to an open listing, optionally offering one of the caller's future shifts.

    Raises `shift-swap-listing-not-found` (on `/listingId`'s listing), `unauthorized`,
    `validation` (not a provider; the offered shift), `shift-swap-own-listing`,
    `shift-swap-listing-closed`, `shift-swap-already-applied`, and the trade's checks."""
    if actor.provider_id is None:
        raise validation("/listingId", "only providers apply for shifts")
    listing = session.get(ShiftSwapListing, body.listing_id, with_for_update=True)
    if listing is None:
        raise not_found("shift-swap-listing", body.listing_id)
    _require_visible(session, actor, listing)
    if listing.provider_id == actor.provider_id:
        raise ProblemError(ProblemCode.SHIFT_SWAP_OWN_LISTING,
                           "This is your own listing; colleagues apply to it.",
                           listingId=str(listing.id))
    _closed(listing, now)
    earlier = session.scalar(select(ShiftSwapApplication.id).where(
        ShiftSwapApplication.listing_id == listing.id,
        ShiftSwapApplication.provider_id == actor.provider_id,
        ShiftSwapApplication.status.in_(LIVE_APPLICATIONS)))
    if earlier is not None:
        raise ProblemError(ProblemCode.SHIFT_SWAP_ALREADY_APPLIED,
                           "You have applied to this listing already; withdraw that application "
                           "to apply differently.", applicationId=str(earlier))
    offered = _offered_shift(session, actor, listing, body.offered_shift_id, now)
    listed = session.get(Shift, listing.shift_id, with_for_update=True)
    assert listed is not None  # the listing's foreign key cascades
    _unchanged(listed, version=listing.shift_version, provider=listing.provider_id)
    _check_trade(session, listing_shift=listed, offered=offered,
                 lister=_provider(session, listing.provider_id),
                 applicant=_provider(session, actor.provider_id), now=now, notice=notice,
                 zone=zone)
    application = ShiftSwapApplication(
        listing_id=listing.id, provider_id=actor.provider_id,
        offered_shift_id=offered.id if offered else None,
        offered_shift_version=offered.version if offered else None, note=body.note,
        status="pending", created_at=now, updated_at=now)
    session.add(application)
    session.flush()
    notify_application_created(session, application, actor=actor, zone=zone)
    return application


def _locked(session: Session, actor: Actor, application_id: uuid.UUID,
            ) -> tuple[ShiftSwapApplication, ShiftSwapListing]:
    """The application and its listing, the listing's row locked first."""
    application = get_application(session, actor=actor, application_id=application_id)
    listing = session.get(ShiftSwapListing, application.listing_id, with_for_update=True)
    assert listing is not None
    session.refresh(application, with_for_update=True)
    return application, listing


def withdraw_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                         body: ShiftSwapApplicationUpdate, now: datetime) -> ShiftSwapApplication:
    """The applicant withdraws a pending or accepted application (an accepted one reopens the
    listing). Raises `shift-swap-application-not-found`, `unauthorized`, `version-conflict`,
    `invalid-state-transition`."""
    application, listing = _locked(session, actor, application_id)
    if application.provider_id != actor.provider_id:
        raise ProblemError(ProblemCode.UNAUTHORIZED, "Only the applicant may withdraw an "
                           "application.", action="edit", resource="ShiftSwapApplication")
    _check_version("application", body.version, application.version)
    _state(application, listing, now, "pending", "accepted")
    if application.status == "accepted":
        listing.status = "open"
        listing.accepted_application_id = None
        listing.updated_at = now
    application.status = "withdrawn"
    application.updated_at = now
    _flush(session, application, "application")
    notify_application_withdrawn(session, application)
    return application


def _state(application: ShiftSwapApplication, listing: ShiftSwapListing, now: datetime,
           *allowed: str) -> None:
    state = application_status(application, listing_status(listing, now))
    if state not in allowed:
        raise ProblemError(ProblemCode.INVALID_STATE_TRANSITION,
                           f"This application is {state}; that cannot change now.",
                           currentState=state)


def _trade_shifts(session: Session, listing: ShiftSwapListing,
                  application: ShiftSwapApplication) -> tuple[Shift, Shift | None]:
    ids = [listing.shift_id] + ([application.offered_shift_id]
                                if application.offered_shift_id else [])
    locked = _lock_shifts(session, ids)
    listed = locked[listing.shift_id]
    offered = locked.get(application.offered_shift_id) if application.offered_shift_id else None
    _unchanged(listed, version=listing.shift_version, provider=listing.provider_id)
    if offered is not None:
        _unchanged(offered, version=application.offered_shift_version,
                   provider=application.provider_id)
    return listed, offered


def accept_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                       version: int | None, now: datetime, notice: int,
                       zone: ZoneInfo) -> ShiftSwapApplication:
    """The lister accepts a pending application of their open listing. Where the team needs
    approval, it waits for a manager (`accepted`); otherwise the shifts change hands now.

    Raises `shift-swap-application-not-found`, `unauthorized`, `version-conflict`,
    `shift-swap-listing-closed`, `invalid-state-transition`, `shift-swap-shift-changed` and the
    trade's checks."""
    application, listing = _locked(session, actor, application_id)
    if listing.provider_id != actor.provider_id:
        raise ProblemError(ProblemCode.UNAUTHORIZED, "Only the lister may accept an "
                           "application.", action="edit", resource="ShiftSwapListing")
    _check_version("application", version, application.version)
    _closed(listing, now)
    _state(application, listing, now, "pending")
    team = session.get(m.Team, listing.team_id)
    assert team is not None
    if not team.swaps_need_approval:
        return _handover(session, actor=actor, application=application, listing=listing,
                         now=now, notice=notice, zone=zone)
    listed, offered = _trade_shifts(session, listing, application)
    _check_trade(session, listing_shift=listed, offered=offered,
                 lister=_provider(session, listing.provider_id),
                 applicant=_provider(session, application.provider_id), now=now, notice=notice,
                 zone=zone)
    application.status = "accepted"
    application.updated_at = now
    listing.status = "accepted"
    listing.accepted_application_id = application.id
    listing.updated_at = now
    _flush(session, application, "application")
    notify_application_accepted(session, application, actor=actor, zone=zone)
    return application


def decline_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                        version: int | None, now: datetime, zone: ZoneInfo,
                        ) -> ShiftSwapApplication:
    """The lister declines a pending application. Raises `shift-swap-application-not-found`,
    `unauthorized`, `version-conflict`, `invalid-state-transition`."""
    application, listing = _locked(session, actor, application_id)
    if listing.provider_id != actor.provider_id:
        raise ProblemError(ProblemCode.UNAUTHORIZED, "Only the lister may decline an "
                           "application.", action="edit", resource="ShiftSwapListing")
    _check_version("application", version, application.version)
    _state(application, listing, now, "pending")
    application.status = "declined"
    application.decided_by = actor.user_id
    application.decided_at = now
    application.updated_at = now
    _flush(session, application, "application")
    notify_application_declined(session, application, actor=actor, zone=zone)
    return application


def _require_manager(actor: Actor, listing: ShiftSwapListing,
                     application: ShiftSwapApplication) -> None:
    if not _may_manage(actor, listing.shift, application.offered_shift):
        raise ProblemError(ProblemCode.UNAUTHORIZED, "Only a manager who may edit both shifts "
                           "decides on a swap.", action="edit", resource="Shift")


def approve_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                        version: int | None, now: datetime, notice: int,
                        zone: ZoneInfo) -> ShiftSwapApplication:
    """A manager approves an accepted application: the shifts change hands. Raises
    `shift-swap-application-not-found`, `unauthorized`, `version-conflict`,
    `invalid-state-transition`, `shift-swap-shift-changed` and the trade's checks."""
    application, listing = _locked(session, actor, application_id)
    _require_manager(actor, listing, application)
    _check_version("application", version, application.version)
    _state(application, listing, now, "accepted")
    return _handover(session, actor=actor, application=application, listing=listing, now=now,
                     notice=notice, zone=zone)


def reject_application(session: Session, *, actor: Actor, application_id: uuid.UUID,
                       version: int | None, reason: str, now: datetime, zone: ZoneInfo,
                       ) -> ShiftSwapApplication:
    """A manager rejects an accepted application with a reason; the listing opens again for
    its other applications. Raises `shift-swap-application-not-found`, `unauthorized`,
    `version-conflict`, `invalid-state-transition`."""
    application, listing = _locked(session, actor, application_id)
    _require_manager(actor, listing, application)
    _check_version("application", version, application.version)
    _state(application, listing, now, "accepted")
    application.status = "rejected"
    application.rejection_reason = reason
    application.decided_by = actor.user_id
    application.decided_at = now
    application.updated_at = now
    listing.status = "open"
    listing.accepted_application_id = None
    listing.updated_at = now
    _flush(session, application, "application")
    notify_swap_rejected(session, application, actor=actor, zone=zone)
    return application


def _handover(session: Session, *, actor: Actor, application: ShiftSwapApplication,
              listing: ShiftSwapListing, now: datetime, notice: int,
              zone: ZoneInfo) -> ShiftSwapApplication:
    """Change both shifts' providers in this transaction (see the module docstring)."""
    listed, offered = _trade_shifts(session, listing, application)
    lister = _provider(session, listing.provider_id)
    applicant = _provider(session, application.provider_id)
    _check_trade(session, listing_shift=listed, offered=offered, lister=lister,
                 applicant=applicant, now=now, notice=notice, zone=zone)
    listed.provider_id = applicant.id
    listed.updated_at = now
    if offered is not None:
        offered.provider_id = lister.id
        offered.updated_at = now
    try:
        session.flush()
    except StaleDataError as exc:
        session.rollback()
        raise ProblemError(ProblemCode.SHIFT_SWAP_SHIFT_CHANGED,
                           "A shift of this swap changed while it was handed over; nothing "
                           "changed hands.", shiftId=str(listing.shift_id),
                           offeredVersion=listing.shift_version, currentVersion=0) from exc
    application.status = "approved"
    application.decided_by = actor.user_id
    application.decided_at = now
    application.updated_at = now
    listing.status = "completed"
    listing.accepted_application_id = application.id
    listing.updated_at = now
    moved = [listed.id] + ([offered.id] if offered else [])
    others = list(session.scalars(select(ShiftSwapListing).where(
        ShiftSwapListing.shift_id.in_(moved), ShiftSwapListing.id != listing.id,
        ShiftSwapListing.status.in_(LIVE_LISTINGS)).with_for_update()))
    for other in others:
        other.status = "closed"
        other.accepted_application_id = None
        other.updated_at = now
    closed = _close_applications(session, [listing.id, *(o.id for o in others)], now,
                                 keep=application.id)
    offering = list(session.scalars(select(ShiftSwapApplication).where(
        ShiftSwapApplication.offered_shift_id.in_(moved),
        ShiftSwapApplication.id != application.id,
        ShiftSwapApplication.status.in_(LIVE_APPLICATIONS)).with_for_update()))
    for other_application in offering:
        if other_application.status == "accepted":
            reopened = session.get(ShiftSwapListing, other_application.listing_id)
            if reopened is not None and reopened.status == "accepted":
                reopened.status = "open"
                reopened.accepted_application_id = None
                reopened.updated_at = now
        other_application.status = "closed"
        other_application.updated_at = now
    session.flush()
    notify_swap_approved(session, application, [*closed, *offering], actor=actor, zone=zone)
    return application
