"""Availability: a provider's weekly pattern (dated versions) and dated exceptions to it.

A pattern's `rules` are wall-clock ranges per weekday (JSON, validated by the contract), read in
the site's time zone for each local date, so they hold across daylight-saving changes. Mapped
classes only; what is available when is decided in `app.api.domain.availability`.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import CheckConstraint, ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Provider

AVAILABILITY_KINDS = ("available", "preferred", "unavailable")
EXCEPTION_KINDS = ("available", "unavailable")


class Availability(Base):
    """One version of a provider's weekly pattern, in force from `effective_from` on."""

    __tablename__ = "availabilities"
    __table_args__ = (Index(None, "provider_id", "effective_from", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id", ondelete="CASCADE"))
    effective_from: Mapped[date]
    rules: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)

    __mapper_args__ = {"version_id_col": version}

    provider: Mapped[Provider] = relationship()


class AvailabilityException(Base):
    """Days (inclusive) on which a provider is, unlike the pattern, unavailable or available."""

    __tablename__ = "availability_exceptions"
    __table_args__ = (
        one_of("kind", EXCEPTION_KINDS),
        CheckConstraint("end_date >= start_date", name="end_date_not_before_start_date"),
        Index(None, "provider_id", "start_date", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id", ondelete="CASCADE"))
    start_date: Mapped[date]
    end_date: Mapped[date]
    kind: Mapped[str] = mapped_column(default="unavailable")
    note: Mapped[str | None]

    __mapper_args__ = {"version_id_col": version}

    provider: Mapped[Provider] = relationship()
