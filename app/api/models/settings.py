"""Settings kept in the database: labels, pay codes and key/value app settings (maintenance mode).

Mapped classes only; reading settings with their defaults belongs to the services.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlalchemy.orm import Mapped, mapped_column

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

PAY_CODE_TYPES = ("hours", "days", "money")


class Label(Base):
    """A coloured tag put on shift segments."""

    __tablename__ = "labels"
    __table_args__ = (Index(None, "name", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    name: Mapped[str]
    description: Mapped[str | None]
    color: Mapped[str]


class PayCode(Base):
    """A code under which time or money is paid out (regular, overtime, PTO …)."""

    __tablename__ = "pay_codes"
    __table_args__ = (one_of("type", PAY_CODE_TYPES), Index(None, "name", "id"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str]
    shorthand_name: Mapped[str]
    hex_color: Mapped[str]
    type: Mapped[str]
    value: Mapped[float]


class AppSetting(Base):
    """One application setting, such as `maintenance_mode`, as a JSON value under its key."""

    __tablename__ = "app_settings"

    key: Mapped[str] = mapped_column(primary_key=True)
    value: Mapped[Any] = mapped_column(JsonType)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
