"""Shifts: `GET /v1/shifts` and `GET /v1/shifts/{shiftId}`.

Thin views over `app.api.services.shifts`: lists show only the shifts the caller may view (the
same rules as one-shift reads, applied in SQL) and hide callouts unless asked for.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import shifts as service
from app.contract.shifts import ShiftGetQuery, ShiftListQuery, ShiftPage, ShiftRead


@endpoint("GET", "/shifts", summary="List shifts", query=ShiftListQuery, response=ShiftPage,
          codes=["negative-range"], tag="Shifts")
def list_shifts(
    session: Session, actor: Actor, query: ShiftListQuery, pages: Paginator
) -> ShiftPage:
    """Shifts overlapping the window (ending after startDate, starting before endDate), by start.

    Callout shifts are left out unless `includeCallouts=true`; `openOnly=true` keeps only shifts
    without a provider; `includeDisplayNames=true` fills providerName, roleName and roleColor.
    """
    rows, cursor = service.list_shifts(session, actor=actor, query=query, pages=pages)
    names = query.include_display_names
    return ShiftPage(items=[service.to_read(s, display_names=names) for s in rows], cursor=cursor)


@endpoint("GET", "/shifts/<shift_id>", summary="Get a shift", query=ShiftGetQuery,
          response=ShiftRead, codes=["shift-not-found"], tag="Shifts")
def get_shift(session: Session, actor: Actor, query: ShiftGetQuery, shift_id: uuid.UUID,
              ) -> ShiftRead:
    """One shift, with its version and pay codes.

    A callout shift is still readable by its id (lists hide callouts by default).
    `includeDisplayNames=true` fills providerName, roleName and roleColor.
    """
    names = query.include_display_names
    shift = service.get_shift(session, actor=actor, shift_id=shift_id, display_names=names)
    return service.to_read(shift, display_names=names)
