"""Timekeeping: one timecard per provider per pay period, its punches, and timesheet sign-offs.

Mapped classes only; the punch state machine and timesheets live in `app.api.domain`.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Column, ForeignKey, Index, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, UtcDateTime, new_id
from app.api.models.common import end_after_start, one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider, User

PUNCH_ACTIONS = ("clock_in", "clock_out", "break_start", "break_end")
PUNCH_STATES = ("pending", "approved", "rejected")


class Timecard(Base):
    """A provider's timecard for one pay period."""

    __tablename__ = "timecards"
    __table_args__ = (
        UniqueConstraint("provider_id", "period_start"),
        end_after_start("period_start", "period_end"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    period_start: Mapped[datetime] = mapped_column(UtcDateTime)
    period_end: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    provider: Mapped[Provider] = relationship()
    punches: Mapped[list[TimecardPunch]] = relationship(
        back_populates="timecard",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: (TimecardPunch.time, TimecardPunch.id),
        lazy="selectin",
    )


class TimecardPunch(Base):
    """One clock-in, clock-out or break punch on a timecard."""

    __tablename__ = "timecard_punches"
    __table_args__ = (
        one_of("action", PUNCH_ACTIONS),
        one_of("state", PUNCH_STATES),
        Index(None, "timecard_id", "time"),
        Index(None, "provider_id", "time"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    timecard_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("timecards.id", ondelete="CASCADE"))
    # Denormalised from the timecard so that punch lists filter by provider without a join.
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    generated: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    action: Mapped[str]
    state: Mapped[str] = mapped_column(default="pending")
    time: Mapped[datetime] = mapped_column(UtcDateTime)
    provider_note: Mapped[str | None]
    admin_note: Mapped[str | None]
    # Who recorded the punch and who last reviewed or corrected it (null: the system, or before
    # these were kept); a deleted user leaves the punch standing.
    created_by: Mapped[uuid.UUID | None] = mapped_column(
        "created_by_id", ForeignKey("users.id", ondelete="SET NULL"))
    reviewed_by: Mapped[uuid.UUID | None] = mapped_column(
        "reviewed_by_id", ForeignKey("users.id", ondelete="SET NULL"))

    timecard: Mapped[Timecard] = relationship(back_populates="punches")
    provider: Mapped[Provider] = relationship()


timesheet_sign_off_providers = Table(
    "timesheet_sign_off_providers",
    Base.metadata,
    Column("sign_off_id", ForeignKey("timesheet_sign_offs.id", ondelete="CASCADE"),
           primary_key=True),
    Column("provider_id", ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True,
           index=True),
)
"""The providers whose timesheets one sign-off covers."""


class TimesheetSignOff(Base):
    """A manager's sign-off of a team's timesheets for `[start_date, end_date)`.

    Reopening keeps the row (`reopened_at`, `reopened_by_id`): only sign-offs not reopened
    freeze the punches and shifts of their providers in their range.
    """

    __tablename__ = "timesheet_sign_offs"
    __table_args__ = (
        end_after_start(),
        Index(None, "team_id", "start_date"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    team_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("teams.id"))
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    signed_by_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    signed_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    reopened_by_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"))
    reopened_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    providers: Mapped[list[Provider]] = relationship(
        secondary=timesheet_sign_off_providers, lazy="selectin",
        order_by="Provider.id",
    )
    signed_by: Mapped[User] = relationship(foreign_keys=[signed_by_id])
    reopened_by: Mapped[User | None] = relationship(foreign_keys=[reopened_by_id])
