"""Shift swaps: a provider's listing of one of their shifts, and colleagues' applications for it.

A listing records the shift's version when listed (`shift_version`), an application the offered
shift's version when applied (`offered_shift_version`): the handover refuses when either shift
changed since. Deleting a shift deletes its listings, and applications offering it. Mapped
classes only; the rules live in `app.api.services.shift_swaps`.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider
    from app.api.models.shifts import Shift

LISTING_KINDS = ("swap", "giveaway")
LISTING_STATUSES = ("open", "accepted", "completed", "withdrawn", "closed")
"""Stored states; an `open` listing past its expiry reads `expired` (evaluated on read)."""
APPLICATION_STATUSES = ("pending", "accepted", "approved", "rejected", "declined", "withdrawn",
                        "closed")


class ShiftSwapListing(Base):
    """A provider's future shift offered for a swap or as a give-away."""

    __tablename__ = "shift_swap_listings"
    __table_args__ = (
        one_of("kind", LISTING_KINDS),
        one_of("status", LISTING_STATUSES),
        Index(None, "team_id", "status", "expires_at"),
        Index(None, "shift_id", "status"),
        Index(None, "provider_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    shift_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("shifts.id", ondelete="CASCADE"))
    shift_version: Mapped[int]
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    team_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("teams.id"))
    kind: Mapped[str]
    note: Mapped[str | None]
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(default="open")
    accepted_application_id: Mapped[uuid.UUID | None]

    __mapper_args__ = {"version_id_col": version}

    shift: Mapped[Shift] = relationship()
    provider: Mapped[Provider] = relationship()


class ShiftSwapApplication(Base):
    """A colleague's application for a listing, optionally offering a shift in exchange."""

    __tablename__ = "shift_swap_applications"
    __table_args__ = (
        one_of("status", APPLICATION_STATUSES),
        Index(None, "listing_id", "status"),
        Index(None, "provider_id", "created_at"),
        Index(None, "offered_shift_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    listing_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("shift_swap_listings.id", ondelete="CASCADE"))
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    offered_shift_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("shifts.id", ondelete="CASCADE"))
    offered_shift_version: Mapped[int | None]
    note: Mapped[str | None]
    status: Mapped[str] = mapped_column(default="pending")
    decided_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"))
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    rejection_reason: Mapped[str | None]

    __mapper_args__ = {"version_id_col": version}

    listing: Mapped[ShiftSwapListing] = relationship()
    provider: Mapped[Provider] = relationship()
    offered_shift: Mapped[Shift | None] = relationship()
