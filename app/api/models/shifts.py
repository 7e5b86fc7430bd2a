"""Shifts, their ordered segments (with labels) and their pay code.

`Shift.version` is SQLAlchemy's `version_id_col`: it rises on every UPDATE of the shift row, and
an UPDATE against a stale version raises `StaleDataError`. Changing only segments or pay codes
does not touch the shift row, so services that do so should also set `updated_at` to bump it.
Mapped classes only; no rules, no Flask.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Boolean, Column, ForeignKey, Index, Table, Uuid, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import end_after_start, one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider, Role, Team
    from app.api.models.settings import Label, PayCode

SEGMENT_TYPES = ("working", "paid_break", "unpaid_break", "on_call")

segment_labels = Table(
    "segment_labels",
    Base.metadata,
    Column("segment_id", ForeignKey("shift_segments.id", ondelete="CASCADE"), primary_key=True),
    Column("label_id", ForeignKey("labels.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "label_id"),
)
"""Which label is on which shift segment; deleting a label takes it off every segment."""


class Shift(Base):
    """A stretch of work of one provider, or an open shift when `provider_id` is null."""

    __tablename__ = "shifts"
    __table_args__ = (
        end_after_start(),
        # Slot search joins a window's shifts to its segments from this index alone.
        Index(None, "start_date", "id", postgresql_include=["provider_id", "is_callout"]),
        Index(None, "provider_id", "start_date"),
        # A team's shifts by start; coverage reads who works them from this index alone.
        Index("ix_shifts_team_coverage", "team_id", "start_date", "is_callout", "provider_id",
              "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    provider_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("providers.id"))
    team_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("teams.id"))
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    note: Mapped[str | None]
    is_callout: Mapped[bool] = mapped_column(default=False)
    work_rule_override: Mapped[uuid.UUID | None]
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    minimum_notice_minutes: Mapped[int | None]

    __mapper_args__ = {"version_id_col": version}

    provider: Mapped[Provider | None] = relationship()
    team: Mapped[Team | None] = relationship()
    segments: Mapped[list[ShiftSegment]] = relationship(
        back_populates="shift",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: (ShiftSegment.start_date, ShiftSegment.id),
        lazy="selectin",
    )
    pay_codes: Mapped[list[ShiftPayCode]] = relationship(
        back_populates="shift",
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="selectin",
    )


class ShiftSegment(Base):
    """A part of a shift: working time in a role, a break, or on-call time."""

    __tablename__ = "shift_segments"
    __table_args__ = (
        one_of("type", SEGMENT_TYPES),
        end_after_start(),
        # A shift's segments by start; coverage reads their kind, role and times from this index
        # alone.
        Index("ix_shift_segments_shift_coverage", "shift_id", "start_date", "end_date", "type",
              "is_break", "is_on_call", "role_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    shift_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("shifts.id", ondelete="CASCADE"))
    imported_id: Mapped[str | None]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    role_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("roles.id"))
    role_imported_id: Mapped[str | None]
    additional_info: Mapped[Any | None] = mapped_column(JsonType)
    is_break: Mapped[bool] = mapped_column(default=False)
    is_on_call: Mapped[bool] = mapped_column(default=False)
    type: Mapped[str] = mapped_column(default="working")
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    skill_requirement: Mapped[dict[str, Any] | None] = mapped_column(JsonType)

    shift: Mapped[Shift] = relationship(back_populates="segments")
    role: Mapped[Role | None] = relationship()
    labels: Mapped[list[Label]] = relationship(
        secondary=segment_labels, order_by="Label.name", lazy="selectin"
    )


# Each segment's copies of its shift's provider and callout flag, for slot search's indexes. The
# database keeps them (the triggers of migration 0018, on every insert or move of a segment and
# every change of its shift's provider or flag): columns of the table that the mapper does not
# map (they are added after it), so the ORM neither reads nor writes them. A migration that
# rebuilds `shifts` or `shift_segments` on SQLite (a batch "move and copy") drops the triggers
# with the old table and must create them again.
SEGMENT_PROVIDER = Column("provider_id", Uuid, nullable=True)
"""A segment's copy of its shift's provider (null for an open shift)."""
SEGMENT_CALLOUT = Column("is_callout", Boolean, nullable=False, server_default=false())
"""A segment's copy of its shift's callout flag."""
_segments = ShiftSegment.__table__
_segments.append_column(SEGMENT_PROVIDER)
_segments.append_column(SEGMENT_CALLOUT)
# Slot search finds the providers with a segment of some roles from this index alone.
Index("ix_shift_segments_slot_roles", _segments.c.role_id, _segments.c.start_date,
      _segments.c.type, _segments.c.is_break, _segments.c.is_on_call, SEGMENT_CALLOUT,
      SEGMENT_PROVIDER, postgresql_include=["end_date"])
# Slot search reads candidate segments by start and filters them from this index alone.
Index("ix_shift_segments_slot_search", _segments.c.start_date, _segments.c.end_date,
      _segments.c.type, _segments.c.is_break, _segments.c.is_on_call, SEGMENT_CALLOUT,
      _segments.c.role_id, SEGMENT_PROVIDER)


class ShiftPayCode(Base):
    """The pay code of a shift; the primary key on `shift_id` allows at most one per shift.

    Keyed by the shift (not a surrogate id) so that replacing it in one flush is an UPDATE:
    with a unique surrogate-keyed row the new INSERT would run before the old DELETE.
    """

    __tablename__ = "shift_pay_codes"
    __table_args__ = (Index(None, "pay_code_id"),)

    shift_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("shifts.id", ondelete="CASCADE"), primary_key=True
    )
    pay_code_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("pay_codes.id"))
    value: Mapped[float | None]

    shift: Mapped[Shift] = relationship(back_populates="pay_codes")
    pay_code: Mapped[PayCode] = relationship()
