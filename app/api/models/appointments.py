"""Appointments and appointment types.

No double booking: on PostgreSQL the migration adds the exclusion constraint
`ex_appointments_no_overlap` (no two `upcoming` appointments of one provider overlap, half-open
ranges); it is not declared here because SQLite cannot express it, and SQLite guards it in code
with serialised writers. `Appointment.version` is SQLAlchemy's `version_id_col`.
Mapped classes only; no rules, no Flask.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import CheckConstraint, ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import end_after_start, one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider

APPOINTMENT_STATUSES = ("upcoming", "occurred", "cancelled", "no-show", "re-scheduled")
NO_OVERLAP_CONSTRAINT = "ex_appointments_no_overlap"
"""Name of the PostgreSQL-only exclusion constraint that refuses double bookings."""


class AppointmentType(Base):
    """A kind of appointment: its length, allowed roles and skill requirement."""

    __tablename__ = "appointment_types"
    __table_args__ = (
        CheckConstraint("length > 0", name="length_positive"),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    name: Mapped[str]
    length: Mapped[int]
    allowed_roles: Mapped[list[str] | None] = mapped_column(JsonType)
    skill_requirement: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    archived_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Additional, unlisted properties the spec allows on an appointment type.
    extra: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)


class Appointment(Base):
    """A booked appointment of a provider with a member."""

    __tablename__ = "appointments"
    __table_args__ = (
        one_of("status", APPOINTMENT_STATUSES),
        end_after_start(),
        Index(None, "start_date", "id"),
        # Slot search counts and reads busy time by start from this index alone.
        Index("ix_appointments_slot_search", "start_date", "end_date", "provider_id", "status"),
        # Slot search counts a provider's live appointments in a window from this index alone.
        Index(None, "provider_id", "start_date", postgresql_include=["status"]),
        Index(None, "member_id"),
        Index(None, "status"),
        Index(None, "type"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    type: Mapped[str]
    appointment_type_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("appointment_types.id")
    )
    status: Mapped[str] = mapped_column(default="upcoming")
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    member_id: Mapped[str | None]
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    actual_start_date: Mapped[datetime | None] = mapped_column(UtcDateTime)
    actual_end_date: Mapped[datetime | None] = mapped_column(UtcDateTime)
    location: Mapped[str | None]
    cancellation_date: Mapped[datetime | None] = mapped_column(UtcDateTime)
    cancellation_reason: Mapped[str | None]

    __mapper_args__ = {"version_id_col": version}

    appointment_type: Mapped[AppointmentType | None] = relationship()
    provider: Mapped[Provider] = relationship()
