"""Pay rules kept as data: overtime rules, rounding rules, and work rules with dated versions.

A work rule is a name and a list of versions, each in effect from its `effective_from` date (the
first day of a workweek) until the next one starts. A version snapshots the overtime and rounding
rules it uses (JSON, ids included), so editing or deleting one of those later never rewrites a
period already computed. Teams name their rule in `teams.work_rule_id`. Mapped classes only; no
validation or business rules.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow

OVERTIME_KINDS = ("daily", "weekly", "period", "seventh_day")
ROUNDING_MODES = ("nearest", "down", "up")


class OvertimeRule(Base):
    """Minutes beyond `threshold_minutes` of a day, week, period or seventh day pay under a code."""

    __tablename__ = "overtime_rules"
    __table_args__ = (
        one_of("kind", OVERTIME_KINDS),
        CheckConstraint("threshold_minutes >= 0", name="threshold_minutes_not_negative"),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    name: Mapped[str]
    kind: Mapped[str]
    threshold_minutes: Mapped[int]
    pay_code_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("pay_codes.id"))

    __mapper_args__ = {"version_id_col": version}


class RoundingRule(Base):
    """Clock-in and clock-out times rounded to `interval_minutes` (a divisor of 60)."""

    __tablename__ = "rounding_rules"
    __table_args__ = (
        one_of("mode", ROUNDING_MODES),
        CheckConstraint("interval_minutes > 0 AND 60 % interval_minutes = 0",
                        name="interval_minutes_divides_hour"),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    name: Mapped[str]
    interval_minutes: Mapped[int]
    mode: Mapped[str]

    __mapper_args__ = {"version_id_col": version}


class WorkRule(Base):
    """A named rule set; what it says on a day is the version in effect that day."""

    __tablename__ = "work_rules"
    __table_args__ = (Index(None, "name", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
    version: Mapped[int] = mapped_column()
    name: Mapped[str]

    __mapper_args__ = {"version_id_col": version}

    versions: Mapped[list[WorkRuleVersion]] = relationship(
        back_populates="work_rule", cascade="all, delete-orphan", passive_deletes=True,
        order_by=lambda: WorkRuleVersion.effective_from,
    )


class WorkRuleVersion(Base):
    """What a work rule says from `effective_from` (local date, first day of a workweek) on."""

    __tablename__ = "work_rule_versions"
    __table_args__ = (
        UniqueConstraint("work_rule_id", "effective_from"),
        CheckConstraint("week_start_day BETWEEN 0 AND 6", name="week_start_day_weekday"),
        CheckConstraint("min_unpaid_break_minutes >= 0", name="min_unpaid_break_not_negative"),
        CheckConstraint("(meal_deduct_minutes IS NULL) = (meal_after_minutes IS NULL)",
                        name="meal_both_or_neither"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    work_rule_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("work_rules.id", ondelete="CASCADE"))
    effective_from: Mapped[date]
    time_zone: Mapped[str]
    week_start_day: Mapped[int]
    week_start_time: Mapped[str]
    day_start_time: Mapped[str]
    period_anchor: Mapped[date | None]
    rounding: Mapped[Any] = mapped_column(JsonType, nullable=True)
    overtime: Mapped[Any] = mapped_column(JsonType)
    meal_deduct_minutes: Mapped[int | None]
    meal_after_minutes: Mapped[int | None]
    min_unpaid_break_minutes: Mapped[int] = mapped_column(default=30)
    counting_pay_code_ids: Mapped[Any] = mapped_column(JsonType)

    work_rule: Mapped[WorkRule] = relationship(back_populates="versions")
