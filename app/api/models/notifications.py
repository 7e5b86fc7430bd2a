"""Notifications: what a person is told about decisions on their records (a user's inbox).

One row per recipient, written in the same transaction as its cause, so a decision that commits
always has its notices and a rolled-back one has none. `read_at` null means unread; the
`(user_id, read_at)` index answers the unread count. `emailed_at` records the worker's delivery.
Mapped classes only; who is told what is decided in `app.api.services.notifications`.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column

from app.api.db import Base, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

NOTIFICATION_KINDS = (
    "time-off-approved", "time-off-rejected", "punch-rejected",
    "shift-assigned", "shift-changed", "shift-unassigned", "shift-deleted", "open-shift-posted",
    "swap-applied", "swap-accepted", "swap-approved", "swap-rejected",
)
NOTIFICATION_SUBJECTS = (
    "TimeOffRequest", "Punch", "Shift", "ShiftSwapListing", "ShiftSwapApplication",
)


class Notification(Base):
    """One notice to one user about one record."""

    __tablename__ = "notifications"
    __table_args__ = (
        one_of("kind", NOTIFICATION_KINDS),
        one_of("subject", NOTIFICATION_SUBJECTS),
        Index(None, "user_id", "created_at", "id"),
        Index(None, "user_id", "read_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str]
    title: Mapped[str]
    body: Mapped[str]
    subject: Mapped[str]
    record_id: Mapped[uuid.UUID]
    record_time: Mapped[datetime | None] = mapped_column(UtcDateTime)
    read_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    emailed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    __mapper_args__ = {"version_id_col": version}
