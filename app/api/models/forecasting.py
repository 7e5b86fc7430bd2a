"""Demand forecast rows: how many staff of a role are needed over a time range.

Mapped classes only; the upload's batch limit is enforced by the service.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import CheckConstraint, ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import end_after_start, utcnow

if TYPE_CHECKING:
    from app.api.models.people import Role


class DemandForecastRow(Base):
    """Forecast demand for one role over one time range; unlisted row properties go in `extra`."""

    __tablename__ = "demand_forecast_rows"
    __table_args__ = (
        CheckConstraint("demand >= 0", name="demand_not_negative"),
        end_after_start(),
        Index(None, "role_id", "start_date"),
        Index(None, "start_date", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    role_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("roles.id"))
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    end_date: Mapped[datetime] = mapped_column(UtcDateTime)
    demand: Mapped[float]
    extra: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    uploaded_by_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"))

    role: Mapped[Role] = relationship()
