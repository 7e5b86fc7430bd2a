"""The audit trail: one row per record written through `/v1`, with who, when and what changed.

Rows are added by `app.api.audit` inside the flush of the write they describe (same transaction);
nothing else writes them. Mapped class only; no recording rules here.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of

AUDIT_ACTIONS = ("create", "edit", "delete")


class AuditEvent(Base):
    """Who created, edited or deleted which record when, and each changed field's before/after."""

    __tablename__ = "audit_events"
    __table_args__ = (
        one_of("action", AUDIT_ACTIONS),
        # Newest first, for the whole trail and within each filter.
        Index(None, "occurred_at", "id"),
        Index(None, "subject", "record_id", "occurred_at"),
        Index(None, "actor_id", "occurred_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    occurred_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Who wrote it: null for the system (the worker, the CLI); the name is kept as it was then,
    # and a deleted user leaves their events standing.
    actor_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))
    actor_name: Mapped[str | None] = mapped_column(String(200))
    subject: Mapped[str] = mapped_column(String(40))
    record_id: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(10))
    changes: Mapped[dict[str, Any]] = mapped_column(JsonType)
    request_id: Mapped[str | None] = mapped_column(String(100))
