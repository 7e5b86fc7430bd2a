"""Shifts: `GET /v1/shifts`, `GET /v1/shifts/{shiftId}` and the extensions that write them:
create, update (optimistic locking), delete and claim an open shift.

Thin views over `app.api.services.shifts`: lists show only the shifts the caller may view (the
same rules as one-shift reads, applied in SQL) and hide callouts unless asked for. The clock is
read here, at the edge, and handed to the services.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import coverage
from app.api.services import shifts as service
from app.api.wire_text import Document
from app.config import Settings
from app.contract.shifts import (
    ShiftClaim,
    ShiftClaimCheckQuery,
    ShiftClaimChecks,
    ShiftCreate,
    ShiftDeleteQuery,
    ShiftGetQuery,
    ShiftListQuery,
    ShiftPage,
    ShiftRead,
    ShiftUpdate,
)

_WRITE_CODES = ["unauthorized", "negative-range", "validation", "timesheet-signed-off",
                "work-rule-not-found", "work-rule-override-conflict"]


@endpoint("GET", "/shifts", summary="List shifts", query=ShiftListQuery, response=ShiftPage,
          codes=["negative-range"], tag="Shifts")
def list_shifts(
    session: Session, actor: Actor, query: ShiftListQuery, pages: Paginator
) -> Document:
    """Shifts overlapping the window (ending after startDate, starting before endDate), by start.

    Callout shifts are left out unless `includeCallouts=true`; `openOnly=true` keeps only shifts
    without a provider; `includeDisplayNames=true` fills providerName, roleName and roleColor.
    """
    items, cursor = service.list_shifts(session, actor=actor, query=query, pages=pages)
    return {"items": items, "cursor": cursor}


@endpoint("GET", "/shifts/<shift_id>", summary="Get a shift", query=ShiftGetQuery,
          response=ShiftRead, codes=["shift-not-found"], tag="Shifts",
          permits=[("view", "Shift")])
def get_shift(session: Session, actor: Actor, query: ShiftGetQuery, shift_id: uuid.UUID,
              ) -> Document:
    """One shift, with its version and pay codes.

    A callout shift is still readable by its id (lists hide callouts by default).
    `includeDisplayNames=true` fills providerName, roleName and roleColor.
    """
    shift = service.get_shift(session, actor=actor, shift_id=shift_id)
    return service.read_shift(session, shift.id, display_names=query.include_display_names)


@endpoint("POST", "/shifts", summary="Create a shift", body=ShiftCreate, response=ShiftRead,
          status=201, codes=_WRITE_CODES, extension=True, tag="Shifts",
          permits=[("create", "Shift")])
def create_shift(session: Session, actor: Actor, body: ShiftCreate, settings: Settings,
                 ) -> tuple[Document, dict[str, str]]:
    """Create a shift; leave `provider` out (or null) for an open shift.

    A shift lasts at most 24 hours (`validation` on `/endDate`; enter longer duty as
    consecutive shifts). Segments must lie inside the shift, ordered by startDate without
    overlapping, in existing roles (of the shift's team when `team` is given) with existing
    labels. Needs `create` Shift on the new shift's fields.
    """
    shift = service.create_shift(session, actor=actor, body=body, now=datetime.now(UTC),
                                 zone=settings.zone)
    location = url_for("api.get_shift", shift_id=shift.id)
    return service.read_shift(session, shift.id), {"Location": location}


@endpoint("PATCH", "/shifts/<shift_id>", summary="Update a shift", body=ShiftUpdate,
          response=ShiftRead, codes=["shift-not-found", "version-conflict", *_WRITE_CODES],
          extension=True, tag="Shifts", locate=service.locate_shift,
          permits=[("edit", "Shift")])
def update_shift(session: Session, actor: Actor, body: ShiftUpdate, shift_id: uuid.UUID,
                 settings: Settings) -> Document:
    """Change the members sent; `segments` and `payCodes` replace the whole lists.

    A `version` sent must be the shift's current version (else `version-conflict` with
    `currentVersion`); left out, the change applies to the latest. Every successful update
    raises it by one. An unknown shift is `shift-not-found` whatever the body. Needs `edit`
    Shift on the shift as it is and as it will be.
    """
    shift = service.update_shift(session, actor=actor, shift_id=shift_id, body=body,
                                 now=datetime.now(UTC), zone=settings.zone)
    return service.read_shift(session, shift.id)


@endpoint("DELETE", "/shifts/<shift_id>", summary="Delete a shift", status=204,
          query=ShiftDeleteQuery,
          codes=["shift-not-found", "unauthorized", "validation", "version-conflict",
                 "timesheet-signed-off"], extension=True,
          tag="Shifts",
          permits=[("edit", "Shift")])
def delete_shift(session: Session, actor: Actor, query: ShiftDeleteQuery,
                 settings: Settings, shift_id: uuid.UUID) -> None:
    """Delete a shift with its segments and pay code. Needs `edit` and `create` Shift on it.

    With `version`, only that version is deleted: a shift changed since the caller read it
    answers `version-conflict` (with `currentVersion`) and stays."""
    service.delete_shift(session, actor=actor, shift_id=shift_id, version=query.version,
                         zone=settings.zone, now=datetime.now(UTC))


@endpoint("POST", "/shifts/<shift_id>/claim", summary="Claim an open shift", body=ShiftClaim,
          response=ShiftRead,
          codes=["shift-not-found", "unauthorized", "validation", "shift-already-claimed",
                 "shift-already-started", "shift-claim-window-closed", "shift-role-not-held",
                 "shift-missing-skills", "shift-time-off-conflict", "shift-schedule-conflict",
                 "timesheet-signed-off"],
          extension=True, tag="Shifts", locate=service.locate_shift,
          permits=[("edit", "Shift")])
def claim_shift(session: Session, actor: Actor, body: ShiftClaim, settings: Settings,
                shift_id: uuid.UUID) -> Document:
    """Claim an open shift for the caller's provider (managers may name another `provider`).

    Refused, with the first reason in this order, when the shift is taken, has started, starts
    within the minimum notice (the shift's own, else the site's), is for a role the provider
    does not hold, needs skills the provider lacks, falls in their approved time off,
    overlaps another of their shifts, or touches a signed-off timesheet of theirs. Managers
    assigning a shift (`PATCH`) are not bound by the role rule.
    """
    shift = service.claim_shift(session, actor=actor, shift_id=shift_id, body=body,
                                now=datetime.now(UTC),
                                default_notice_minutes=settings.claim_notice_minutes,
                                zone=settings.zone)
    return service.read_shift(session, shift.id)


@endpoint("GET", "/shifts/claim-checks", summary="Check which open shifts a provider may claim",
          query=ShiftClaimCheckQuery, response=ShiftClaimChecks,
          codes=["validation", "unauthorized"], extension=True, tag="Shifts")
def list_shift_claim_checks(session: Session, actor: Actor, query: ShiftClaimCheckQuery,
                            settings: Settings) -> ShiftClaimChecks:
    """For each open shift named, whether the provider (the caller's own by default) may claim
    it now and every reason not: the same rules and problem codes as claiming, all at once, so
    a page can say why beside each shift instead of offering a claim that would fail, and
    `neededMinutes`: how much of each shift's working time its role is short of staff against
    the demand forecast (a figure the provider may see without viewing the forecast). Shifts
    that do not exist or the caller may not view are left out."""
    return ShiftClaimChecks(items=service.claim_checks(
        session, actor=actor, query=query, now=datetime.now(UTC),
        default_notice_minutes=settings.claim_notice_minutes, zone=settings.zone,
        needed=lambda ids: coverage.needed_minutes(session, shift_ids=ids, zone=settings.zone)))
