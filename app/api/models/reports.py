"""Report runs: who asked for which report with which parameters, and the file it produced.

The CSV itself is kept in `file_content`, deferred so that listing runs never loads it.
Mapped classes only; running reports belongs to the job queue.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, LargeBinary
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import User

REPORT_RUN_STATUSES = ("running", "completed", "failed")


class ReportRun(Base):
    """One run of a report from the catalog."""

    __tablename__ = "report_runs"
    __table_args__ = (
        one_of("status", REPORT_RUN_STATUSES),
        CheckConstraint("file_size_bytes >= 0", name="file_size_bytes_not_negative"),
        Index(None, "created_at", "id"),
        Index(None, "created_by_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    report_id: Mapped[str]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    created_by_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    parameters: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    status: Mapped[str] = mapped_column(default="running")
    file_name: Mapped[str | None]
    file_media_type: Mapped[str | None]
    file_size_bytes: Mapped[int | None] = mapped_column(BigInteger)
    file_content: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    error: Mapped[str | None]
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    created_by: Mapped[User] = relationship()
