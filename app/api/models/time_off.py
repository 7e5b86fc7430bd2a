"""Time off: policies, who belongs to them, requests and their hours off per day.

Mapped classes only; approval, conflict resolution and paid hours are computed elsewhere.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, ForeignKey, Index, Table
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import end_after_start, one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider, User
    from app.api.models.settings import PayCode

TIME_OFF_POLICY_TYPES = (
    "bereavement",
    "floating-holiday",
    "holiday-pay",
    "jury-duty",
    "learning-and-development",
    "paid-time-off",
    "vacation",
    "parental-leave",
    "personal-day",
    "sick",
    "volunteer",
    "weather",
    "wellness",
    "flex-day",
    "marriage-code",
    "unpaid-day",
    "absence",
    "custom",
)
ACCRUAL_UNITS = ("hours", "days")
TIME_OFF_REQUEST_STATUSES = (
    "pending",
    "approved",
    "rejected",
    "cancelled",
    "pending_sync",
    "sync_failed",
)
CONFLICT_RESOLUTIONS = (
    "delete",
    "deleteWithOpen",
    "callout",
    "calloutWithOpen",
    "keep",
    "keepWithOpen",
)

time_off_policy_members = Table(
    "time_off_policy_members",
    Base.metadata,
    Column("policy_id", ForeignKey("time_off_policies.id", ondelete="CASCADE"), primary_key=True),
    Column("provider_id", ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "provider_id"),
)
"""Which provider belongs to which time off policy."""


class TimeOffPolicy(Base):
    """A kind of leave providers may request, paid under an optional pay code."""

    __tablename__ = "time_off_policies"
    __table_args__ = (
        one_of("type", TIME_OFF_POLICY_TYPES),
        one_of("accrual_unit", ACCRUAL_UNITS),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    type: Mapped[str]
    name: Mapped[str]
    description: Mapped[str | None]
    accrual_unit: Mapped[str | None]
    pay_code_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("pay_codes.id"))
    properties: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)

    pay_code: Mapped[PayCode | None] = relationship()
    members: Mapped[list[Provider]] = relationship(secondary=time_off_policy_members)


class TimeOffRequest(Base):
    """A provider's request for time off under a policy, and its decision."""

    __tablename__ = "time_off_requests"
    __table_args__ = (
        one_of("status", TIME_OFF_REQUEST_STATUSES),
        one_of("conflict_resolution", CONFLICT_RESOLUTIONS),
        end_after_start(),
        Index(None, "start_date", "id"),
        Index(None, "provider_id", "start_date"),
        Index(None, "policy_id"),
        Index(None, "status"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    status: Mapped[str] = mapped_column(default="pending")
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    policy_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("time_off_policies.id"))
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    note: Mapped[str | None]
    paid_hours: Mapped[float] = mapped_column(default=0.0)
    rejected_by_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"))
    rejection_reason: Mapped[str | None]
    sync_error: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    conflict_resolution: Mapped[str | None]
    is_full_day: Mapped[bool | None]
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # A provider's request to cancel approved leave waits here for a manager's decision.
    cancellation_requested_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    cancellation_declined_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    cancellation_decline_reason: Mapped[str | None]

    policy: Mapped[TimeOffPolicy] = relationship()
    provider: Mapped[Provider] = relationship()
    rejected_by: Mapped[User | None] = relationship()
    daily_hours: Mapped[list[TimeOffDay]] = relationship(
        back_populates="request",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: TimeOffDay.date,
        lazy="selectin",
    )


class TimeOffDay(Base):
    """Hours off on one day of a request; `date` is that local day's midnight as given, in UTC."""

    __tablename__ = "time_off_days"
    # Deliberately not unique: replacing a request's days in one flush inserts before it deletes.
    __table_args__ = (Index(None, "request_id", "date"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    request_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("time_off_requests.id", ondelete="CASCADE")
    )
    date: Mapped[datetime] = mapped_column(UtcDateTime)
    duration: Mapped[float]

    request: Mapped[TimeOffRequest] = relationship(back_populates="daily_hours")
