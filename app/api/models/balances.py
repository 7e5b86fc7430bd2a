"""Time-off balances: a policy's accrual settings, the append-only ledger, the per-(provider,
policy) lock rows and the balance reset uploads.

Mapped classes only; the arithmetic lives in `app.api.domain.balances`, the use cases in
`app.api.services.balances`. Amounts are exact: an integer numerator and a positive integer
denominator (in lowest terms), never a float. Ledger rows are never updated or deleted.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import BigInteger, CheckConstraint, Date, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, backref, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.common import one_of, utcnow
from app.api.models.time_off import TimeOffPolicy

ACCRUAL_METHODS = ("per_hour_worked", "per_period", "up_front")
ACCRUAL_PERIODS = ("pay_period", "monthly", "yearly")
DEBIT_ON = ("approval", "leave_date")
LEDGER_KINDS = ("accrual", "usage", "reversal", "carry_over", "forfeit", "expiry", "reset",
                "adjustment")
UPLOAD_STATUSES = ("completed",)


class TimeOffAccrualSettings(Base):
    """How one policy accrues and what it lets a provider use (one row per policy at most).

    Fraction-valued settings are stored as their exact text ("1/30", "12.5"), as the wire
    writes them.
    """

    __tablename__ = "time_off_accrual_settings"
    __table_args__ = (
        one_of("method", ACCRUAL_METHODS),
        one_of("period", ACCRUAL_PERIODS),
        one_of("debit_on", DEBIT_ON),
        CheckConstraint("waiting_period_days >= 0", name="waiting_period_not_negative"),
    )

    policy_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("time_off_policies.id", ondelete="CASCADE"), primary_key=True)
    method: Mapped[str]
    rate: Mapped[str] = mapped_column(String(40))
    start_date: Mapped[date] = mapped_column(Date)
    period: Mapped[str] = mapped_column(default="pay_period")
    period_anchor: Mapped[date | None] = mapped_column(Date)
    balance_cap: Mapped[str | None] = mapped_column(String(40))
    annual_accrual_cap: Mapped[str | None] = mapped_column(String(40))
    annual_use_limit: Mapped[str | None] = mapped_column(String(40))
    carry_over_max: Mapped[str | None] = mapped_column(String(40))
    carry_over_month: Mapped[int] = mapped_column(default=1)
    carry_over_day: Mapped[int] = mapped_column(default=1)
    waiting_period_days: Mapped[int] = mapped_column(default=0)
    allow_negative: Mapped[bool] = mapped_column(default=False)
    negative_floor: Mapped[str] = mapped_column(String(40), default="0")
    debit_on: Mapped[str] = mapped_column(default="approval")
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))

    # Joined into every policy load (no statement more), so a policy read shows its settings.
    policy: Mapped[TimeOffPolicy] = relationship(
        backref=backref("accrual_settings", uselist=False, lazy="joined"))


class TimeOffLedgerEntry(Base):
    """One change of a provider's balance in a policy, from its effective date on."""

    __tablename__ = "time_off_ledger_entries"
    __table_args__ = (
        one_of("kind", LEDGER_KINDS),
        CheckConstraint("amount_denominator > 0", name="amount_denominator_positive"),
        CheckConstraint("target_denominator IS NULL OR target_denominator > 0",
                        name="target_denominator_positive"),
        Index(None, "provider_id", "policy_id", "effective_date"),
        Index(None, "policy_id", "kind"),
        Index(None, "request_id"),
        Index(None, "upload_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id", ondelete="CASCADE"))
    policy_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("time_off_policies.id", ondelete="CASCADE"))
    kind: Mapped[str]
    effective_date: Mapped[date] = mapped_column(Date)
    amount_numerator: Mapped[int] = mapped_column(BigInteger)
    amount_denominator: Mapped[int] = mapped_column(BigInteger)
    target_numerator: Mapped[int | None] = mapped_column(BigInteger)
    target_denominator: Mapped[int | None] = mapped_column(BigInteger)
    request_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("time_off_requests.id", ondelete="SET NULL"))
    upload_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("time_off_balance_uploads.id", ondelete="SET NULL"))
    source_key: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))


class TimeOffBalanceLock(Base):
    """A row per provider and policy that writers of usage lock (`FOR UPDATE`) while they check
    and debit the balance, so two approvals against one balance run one after the other."""

    __tablename__ = "time_off_balance_locks"

    provider_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True)
    policy_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("time_off_policies.id", ondelete="CASCADE"), primary_key=True)


class TimeOffBalanceUpload(Base):
    """A balance reset file as uploaded: its hash (the same file twice is one upload), its rows
    as read and what each did."""

    __tablename__ = "time_off_balance_uploads"
    __table_args__ = (one_of("status", UPLOAD_STATUSES), Index(None, "created_at", "id"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    file_hash: Mapped[str] = mapped_column(String(64), unique=True)
    file_name: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(default="completed")
    row_count: Mapped[int] = mapped_column(default=0)
    rows: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))
