"""Shift swaps (extension): listings (`/v1/shift-swap-listings`) and applications
(`/v1/shift-swap-applications`) with their transitions (accept, decline, approve, reject).

Thin views over `app.api.services.shift_swaps`, which holds the rules, the checks and the
handover. Writes are versioned like shifts: `version` in the body.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import shift_swaps as service
from app.config import Settings
from app.contract.shift_swaps import (
    ShiftSwapApplicationCreate,
    ShiftSwapApplicationPage,
    ShiftSwapApplicationQuery,
    ShiftSwapApplicationRead,
    ShiftSwapApplicationUpdate,
    ShiftSwapDecision,
    ShiftSwapListingCreate,
    ShiftSwapListingPage,
    ShiftSwapListingQuery,
    ShiftSwapListingRead,
    ShiftSwapListingUpdate,
    ShiftSwapRejection,
)

TAG = "Shift swaps"
TRADE_CHECKS = [
    "shift-already-started", "shift-claim-window-closed", "shift-role-not-held",
    "shift-missing-skills", "shift-time-off-conflict", "shift-schedule-conflict",
    "timesheet-signed-off", "shift-swap-unavailable", "shift-swap-max-weekly-hours",
    "shift-swap-shift-changed",
]
"""The refusals of either direction of a trade, in the order they are checked."""
_APPLICATION = ["shift-swap-application-not-found", "unauthorized", "validation",
                "version-conflict", "invalid-state-transition"]


def _now() -> datetime:
    return datetime.now(UTC)


def _listing(session: Session, listing: object) -> ShiftSwapListingRead:
    return service.listing_reads(session, [listing], _now())[0]  # type: ignore[list-item]


def _application(session: Session, application: object) -> ShiftSwapApplicationRead:
    return service.application_reads(session, [application], _now())[0]  # type: ignore[list-item]


@endpoint("GET", "/shift-swap-listings", summary="List shift swap listings",
          query=ShiftSwapListingQuery, response=ShiftSwapListingPage, codes=["validation"],
          extension=True, tag=TAG)
def list_shift_swap_listings(session: Session, actor: Actor, query: ShiftSwapListingQuery,
                             pages: Paginator) -> ShiftSwapListingPage:
    """Listings the caller may see, soonest expiry first: their own, those they applied to, open
    listings of their team whose every working role they hold, and those of shifts they may
    edit (managers). `status=expired` finds open listings past `expiresAt`."""
    now = _now()
    rows, cursor = service.list_listings(session, actor=actor, query=query, pages=pages, now=now)
    return ShiftSwapListingPage(items=service.listing_reads(session, rows, now), cursor=cursor)


@endpoint("POST", "/shift-swap-listings", summary="List a shift for a swap or give-away",
          body=ShiftSwapListingCreate, response=ShiftSwapListingRead, status=201,
          codes=["validation", "shift-not-found", "unauthorized", "shift-swap-not-own-shift",
                 "shift-already-started", "shift-swap-already-listed"],
          extension=True, tag=TAG, permits=[("view", "Shift")])
def create_shift_swap_listing(session: Session, actor: Actor, body: ShiftSwapListingCreate,
                              ) -> tuple[ShiftSwapListingRead, dict[str, str]]:
    """Offer one of the caller's own future shifts (not a callout) to colleagues: `swap` (they
    may offer a shift in exchange) or `giveaway`. Colleagues may apply until `expiresAt`,
    which defaults to, and may not pass, the shift's start. One live listing per shift."""
    listing = service.create_listing(session, actor=actor, body=body, now=_now())
    return _listing(session, listing), {"Location": url_for(
        "api.get_shift_swap_listing", listing_id=listing.id)}


@endpoint("GET", "/shift-swap-listings/<listing_id>", summary="Get a shift swap listing",
          response=ShiftSwapListingRead,
          codes=["shift-swap-listing-not-found", "unauthorized"], extension=True, tag=TAG)
def get_shift_swap_listing(session: Session, actor: Actor,
                           listing_id: uuid.UUID) -> ShiftSwapListingRead:
    """One listing the caller may see."""
    return _listing(session, service.get_listing(session, actor=actor, listing_id=listing_id))


@endpoint("PATCH", "/shift-swap-listings/<listing_id>", summary="Change or withdraw a listing",
          body=ShiftSwapListingUpdate, response=ShiftSwapListingRead,
          codes=["shift-swap-listing-not-found", "unauthorized", "validation",
                 "version-conflict", "shift-swap-listing-closed"],
          extension=True, tag=TAG, locate=service.locate_listing)
def update_shift_swap_listing(session: Session, actor: Actor, body: ShiftSwapListingUpdate,
                              listing_id: uuid.UUID) -> ShiftSwapListingRead:
    """The lister (or a manager of the shift) changes the note or expiry of an open listing,
    or withdraws it (`status: withdrawn`, also once an application is accepted), which closes
    its applications."""
    return _listing(session, service.update_listing(
        session, actor=actor, listing_id=listing_id, body=body, now=_now()))


@endpoint("GET", "/shift-swap-applications", summary="List shift swap applications",
          query=ShiftSwapApplicationQuery, response=ShiftSwapApplicationPage,
          codes=["validation"], extension=True, tag=TAG)
def list_shift_swap_applications(session: Session, actor: Actor,
                                 query: ShiftSwapApplicationQuery,
                                 pages: Paginator) -> ShiftSwapApplicationPage:
    """Applications the caller may see, newest first: their own, those to their listings, and
    those to listings of shifts they may edit (`status=accepted` is a manager's queue)."""
    now = _now()
    rows, cursor = service.list_applications(session, actor=actor, query=query, pages=pages,
                                             now=now)
    return ShiftSwapApplicationPage(items=service.application_reads(session, rows, now),
                                    cursor=cursor)


@endpoint("POST", "/shift-swap-applications", summary="Apply to a shift swap listing",
          body=ShiftSwapApplicationCreate, response=ShiftSwapApplicationRead, status=201,
          codes=["validation", "shift-swap-listing-not-found", "unauthorized",
                 "shift-swap-own-listing", "shift-swap-listing-closed",
                 "shift-swap-already-applied", *TRADE_CHECKS],
          extension=True, tag=TAG)
def create_shift_swap_application(session: Session, actor: Actor, settings: Settings,
                                  body: ShiftSwapApplicationCreate,
                                  ) -> tuple[ShiftSwapApplicationRead, dict[str, str]]:
    """Apply for a listed shift, optionally offering one of the caller's own future shifts of
    the same team in exchange (swap listings only). Both directions of the trade are checked as
    the claim of an open shift is, and against unavailable time and `maxWeeklyHours`."""
    application = service.create_application(
        session, actor=actor, body=body, now=_now(),
        notice=settings.claim_notice_minutes, zone=settings.zone)
    return _application(session, application), {"Location": url_for(
        "api.get_shift_swap_application", application_id=application.id)}


@endpoint("GET", "/shift-swap-applications/<application_id>",
          summary="Get a shift swap application", response=ShiftSwapApplicationRead,
          codes=["shift-swap-application-not-found", "unauthorized"], extension=True, tag=TAG)
def get_shift_swap_application(session: Session, actor: Actor,
                               application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """One application the caller may see."""
    return _application(session, service.get_application(
        session, actor=actor, application_id=application_id))


@endpoint("PATCH", "/shift-swap-applications/<application_id>",
          summary="Withdraw a shift swap application", body=ShiftSwapApplicationUpdate,
          response=ShiftSwapApplicationRead, codes=_APPLICATION, extension=True, tag=TAG,
          locate=service.locate_application)
def update_shift_swap_application(session: Session, actor: Actor,
                                  body: ShiftSwapApplicationUpdate,
                                  application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """The applicant withdraws (`status: withdrawn`) a pending or accepted application; an
    accepted one opens the listing again."""
    return _application(session, service.withdraw_application(
        session, actor=actor, application_id=application_id, body=body, now=_now()))


@endpoint("POST", "/shift-swap-applications/<application_id>/accept",
          summary="Accept a shift swap application", body=ShiftSwapDecision,
          response=ShiftSwapApplicationRead,
          codes=[*_APPLICATION, "shift-swap-listing-closed", *TRADE_CHECKS],
          extension=True, tag=TAG, locate=service.locate_application)
def accept_shift_swap_application(session: Session, actor: Actor, settings: Settings,
                                  body: ShiftSwapDecision,
                                  application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """The lister accepts one pending application of their open listing. It then waits for a
    manager, unless the team's `swapsNeedApproval` is off: then the shifts change hands now
    (the application reads `approved`)."""
    return _application(session, service.accept_application(
        session, actor=actor, application_id=application_id, version=body.version,
        now=_now(), notice=settings.claim_notice_minutes, zone=settings.zone))


@endpoint("POST", "/shift-swap-applications/<application_id>/decline",
          summary="Decline a shift swap application", body=ShiftSwapDecision,
          response=ShiftSwapApplicationRead, codes=_APPLICATION, extension=True, tag=TAG,
          locate=service.locate_application)
def decline_shift_swap_application(session: Session, actor: Actor, settings: Settings,
                                   body: ShiftSwapDecision,
                                   application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """The lister declines a pending application."""
    return _application(session, service.decline_application(
        session, actor=actor, application_id=application_id, version=body.version,
        now=_now(), zone=settings.zone))


@endpoint("POST", "/shift-swap-applications/<application_id>/approve",
          summary="Approve a shift swap", body=ShiftSwapDecision,
          response=ShiftSwapApplicationRead, codes=[*_APPLICATION, *TRADE_CHECKS],
          extension=True, tag=TAG, locate=service.locate_application,
          permits=[("edit", "Shift")])
def approve_shift_swap_application(session: Session, actor: Actor, settings: Settings,
                                   body: ShiftSwapDecision,
                                   application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """A manager who may edit both shifts approves an accepted application: in one transaction
    both shifts change provider (each under its version), after every check once more; the
    listing's other applications, other listings of either shift and applications offering
    either shift are closed."""
    return _application(session, service.approve_application(
        session, actor=actor, application_id=application_id, version=body.version,
        now=_now(), notice=settings.claim_notice_minutes, zone=settings.zone))


@endpoint("POST", "/shift-swap-applications/<application_id>/reject",
          summary="Reject a shift swap", body=ShiftSwapRejection,
          response=ShiftSwapApplicationRead, codes=_APPLICATION, extension=True, tag=TAG,
          locate=service.locate_application, permits=[("edit", "Shift")])
def reject_shift_swap_application(session: Session, actor: Actor, settings: Settings,
                                  body: ShiftSwapRejection,
                                  application_id: uuid.UUID) -> ShiftSwapApplicationRead:
    """A manager rejects an accepted application with `rejectionReason`; the listing opens
    again for its other applications."""
    return _application(session, service.reject_application(
        session, actor=actor, application_id=application_id, version=body.version,
        reason=body.rejection_reason, now=_now(), zone=settings.zone))
